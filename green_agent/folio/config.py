"""The FOLIO assessment config: one pydantic model that validates a request and states its JSON Schema.

:class:`FolioConfig` is the single source of the keys, types, bounds and defaults;
:func:`green_agent.core.config.validate_config` checks a request against it, so the first violation is a
:class:`~green_agent.core.contract.RequestError` naming the dotted field (``config.timeout_s``). The
shipped ``green_agent/folio/schemas/folio-config.schema.json`` is generated from it:
``python -m green_agent.folio.config --write``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from green_agent.plugin import (
    KEEP_INT,
    UNIQUE,
    ShardedConfig,
    schema_command,
    schema_config,
    validate_config,
)

SCHEMA_NAME = "folio-config"
SCHEMA_FILE = Path(__file__).parent / "schemas" / f"{SCHEMA_NAME}.schema.json"
"""The generated JSON Schema shipped for readers outside Python."""
Variant = Literal["original", "rename", "shuffle", "distractor", "negate"]
SourceFlag = Literal["repaired", "ambiguous_parenthesis", "scope_choice", "case_collision"]


class FolioConfig(ShardedConfig):
    """The 'config' object of an AgentBeats request to the FOLIO green agent (docs/architecture.md, Budgets)."""

    model_config = schema_config(
        "FOLIO assessment config",
        "https://github.com/agentified-assessment/schemas/folio-config.schema.json",
    )

    dataset: str = Field("folio-sample", min_length=1)
    """A dataset manifest entry name (scenarios/folio/manifest.toml) or a path to a FOLIO file."""
    split: str | None = Field(None, min_length=1)
    """Split to use; must agree with the manifest entry, or selects the entry '<dataset>-<split>'."""
    limit: int | None = Field(None, ge=1)
    """Assess only the first N items (after seeded ordering and sharding)."""
    seed: int | str | None = None
    """Seed of a stable shuffle of the item order; absent = file order."""
    deadline_s: Annotated[float, Field(gt=0), KEEP_INT] | None = None
    """Budget of the whole run; items not finished by then are timeouts of kind 'deadline'."""
    expose_fol: bool = False
    """Also send the gold FOL of premises and conclusion (the reference agent needs it)."""
    variants: Annotated[tuple[Variant, ...], Field(min_length=1), UNIQUE] = ("original",)
    """Versions of each item sent: the original and/or prover-verified variants (docs/variants.md)."""
    variants_exclude: Annotated[tuple[SourceFlag, ...], UNIQUE] = ()
    """Leave out every source item (original and variants) whose gold FOL carries one of these flags:
    it needed a lenient repair, an ambiguous parenthesis repair, or a quantifier-scope choice, or it spells
    two symbols differently only in case (docs/variants.md)."""
    strata: bool = True
    """Place each item with gold FOL in a prover-derived difficulty stratum (premises a proof needs) and
    report accuracy per stratum (docs/report.md, Difficulty); cached per dataset hash."""
    data_dir: str | None = Field(None, min_length=1)
    """Root for manifest paths written '{data_dir}/...' (overrides $AGENTBEATS_DATA_DIR)."""

    @property
    def run_deadline_s(self) -> float | None:
        return self.deadline_s


def parse_config(raw: Mapping[str, Any] | None) -> FolioConfig:
    """Validate ``raw`` and return the config; raise :class:`RequestError` naming the first bad field."""
    return validate_config(FolioConfig, raw)


if __name__ == "__main__":
    sys.exit(schema_command(FolioConfig, SCHEMA_FILE, sys.argv[1:]))
