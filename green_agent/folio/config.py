"""The FOLIO assessment config: JSON Schema validation at the edge, then a frozen dataclass.

The schema (``green_agent/schemas/folio-config.schema.json``) is the single source of the keys,
types and defaults; :func:`parse_config` turns the first schema violation into a
:class:`~green_agent.protocol.RequestError` naming the dotted field (``config.timeout_s``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import jsonschema

from green_agent.calls import Budget
from green_agent.protocol import RequestError
from green_agent.schemas import load_schema

SCHEMA_NAME = "folio-config"


@dataclass(frozen=True)
class FolioConfig:
    """A validated FOLIO config (docs/architecture.md, Budgets); every field has the schema's default."""

    dataset: str = "folio-sample"
    """Manifest entry name or path to a FOLIO file."""
    split: str | None = None
    """Split to use (checked against the manifest entry)."""
    limit: int | None = None
    """Assess at most this many items (after ordering and sharding)."""
    seed: int | str | None = None
    """Seed of the stable item shuffle; ``None`` keeps file order."""
    timeout_s: float = 120.0
    """Per-task wall-clock budget, retries included."""
    max_retries: int = 2
    """Retries after retryable transport faults."""
    concurrency: int = 8
    """Tasks in flight at once, per participant."""
    deadline_s: float | None = None
    """Budget of the whole run."""
    max_response_bytes: int = 1 << 20
    """Largest reply accepted."""
    expose_fol: bool = False
    """Send the gold FOL with each task."""
    shard_index: int = 0
    """This shard, ``0 <= shard_index < num_shards``."""
    num_shards: int = 1
    """Number of shards; items with ``index % num_shards == shard_index`` are assessed."""
    num_instances: int | None = None
    """AgentBeats' ``num_instances``: the run assesses the dataset's first N items (file order), split
    across all shards; None assesses every item."""
    resume: bool = False
    """Continue the journal of an earlier identical run (same request, same agent cards)."""
    variants: tuple[str, ...] = ("original",)
    """Versions of each item sent: ``original`` and/or proved variants (``rename``, ``shuffle``, ...)."""
    data_dir: str | None = None
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


def _field_of(error: jsonschema.ValidationError, raw: Mapping[str, Any], known: set[str]) -> str:
    path = [str(p) for p in error.absolute_path]
    if not path and error.validator == "additionalProperties":
        extra = sorted(set(raw) - known)
        path = extra[:1]
    return ".".join(["config", *path])


def _reason(error: jsonschema.ValidationError, raw: Mapping[str, Any], known: set[str]) -> str:
    if error.validator == "additionalProperties":
        extra = sorted(set(raw) - known)
        return f"unknown key {extra[0]!r} (allowed: {', '.join(sorted(known))})" if extra else error.message
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return f"must be of type {expected}, got {error.instance!r}"
    return error.message


def parse_config(raw: Mapping[str, Any] | None) -> FolioConfig:
    """Validate ``raw`` against the schema and return the config; raise :class:`RequestError`."""
    raw = dict(raw or {})
    schema = load_schema(SCHEMA_NAME)
    known = set(schema["properties"])
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(raw), key=lambda e: (list(map(str, e.absolute_path)), e.validator))
    if errors:
        first = errors[0]
        raise RequestError(_field_of(first, raw, known), _reason(first, raw, known))
    values: dict[str, Any] = {}
    for key, spec in schema["properties"].items():
        value = raw.get(key, spec.get("default"))
        if isinstance(value, float) and value.is_integer() and "integer" in _types(spec):
            value = int(value)  # JSON numbers may arrive as floats
        if isinstance(value, list):
            value = tuple(value)
        values[key] = value
    config = FolioConfig(**values)
    if config.shard_index >= config.num_shards:
        raise RequestError(
            "config.shard_index",
            f"must be smaller than num_shards ({config.shard_index} >= {config.num_shards})",
        )
    return config


def _types(spec: Mapping[str, Any]) -> list[str]:
    types = spec.get("type", [])
    return [types] if isinstance(types, str) else list(types)
