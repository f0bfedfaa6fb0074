"""The FOLIO assessment config: JSON Schema validation at the edge, then a frozen dataclass.

The schema (``green_agent/core/schemas/folio-config.schema.json``) is the single source of the keys,
types and defaults; :mod:`green_agent.core.config` does the parsing, so the first violation is a
:class:`~green_agent.core.contract.RequestError` naming the dotted field (``config.timeout_s``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from green_agent.core import config as config_schema
from green_agent.kit.client.calls import Budget

SCHEMA_NAME = "folio-config"


@dataclass(frozen=True)
class FolioConfig:
    """A validated FOLIO config (docs/architecture.md, Budgets); an absent key takes the schema's default
    (no defaults here: the schema is the one source)."""

    dataset: str
    """Manifest entry name or path to a FOLIO file."""
    split: str | None
    """Split to use (checked against the manifest entry)."""
    limit: int | None
    """Assess at most this many items (after ordering and sharding)."""
    seed: int | str | None
    """Seed of the stable item shuffle; ``None`` keeps file order."""
    timeout_s: float
    """Per-task wall-clock budget, retries included."""
    max_retries: int
    """Retries after retryable transport faults."""
    concurrency: int
    """Tasks in flight at once, per participant."""
    deadline_s: float | None
    """Budget of the whole run."""
    max_response_bytes: int
    """Largest reply accepted."""
    expose_fol: bool
    """Send the gold FOL with each task."""
    shard_index: int
    """This shard, ``0 <= shard_index < num_shards``."""
    num_shards: int
    """Number of shards; items with ``index % num_shards == shard_index`` are assessed."""
    num_instances: int | None
    """AgentBeats' ``num_instances``: the run assesses the dataset's first N items (file order), split
    across all shards; None assesses every item."""
    resume: bool
    """Continue the journal of an earlier identical run (same request, same agent cards)."""
    variants: tuple[str, ...]
    """Versions of each item sent: ``original`` and/or proved variants (``rename``, ``shuffle``, ...)."""
    data_dir: str | None
    """Root for ``{data_dir}`` manifest paths (overrides ``$AGENTBEATS_DATA_DIR``)."""

    def budget(self) -> Budget:
        """The per-call budget these settings describe."""
        return Budget(
            timeout_s=self.timeout_s, max_retries=self.max_retries, max_response_bytes=self.max_response_bytes
        )

    def as_dict(self) -> dict[str, Any]:
        """Every field, JSON-serialisable (for the reproducibility block)."""
        return asdict(self)

    def identity(self) -> dict[str, Any]:
        """The fields that define the assessment (all but ``resume``), for the journal id."""
        values = self.as_dict()
        values.pop("resume")
        return values


def parse_config(raw: Mapping[str, Any] | None) -> FolioConfig:
    """Validate ``raw`` against the schema and return the config; raise :class:`RequestError`."""
    config = config_schema.parse_config(FolioConfig, SCHEMA_NAME, raw)
    config_schema.check_shard(config.shard_index, config.num_shards)
    return config
