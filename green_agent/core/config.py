"""An assessor's config: a request mapping checked against a JSON Schema, then a frozen dataclass.

Every plugin keeps its config schema as package data (``green_agent/core/schemas/<name>.schema.json``); it
is the single source of the keys, types and defaults. :func:`parse_config` turns the first violation
into a :class:`~green_agent.core.contract.RequestError` with a one-line message naming the dotted field
(``config.timeout_s: must be of type number, got 'fast'``), fills every absent key from the schema's
``default``, and builds the plugin's dataclass (JSON arrays become tuples, integral floats of
``integer`` keys become ints).

Before the schema, :func:`refuse_operator_settings` turns away any key that names something the green
agent would call with its operator's credentials (an LLM's model or endpoint, an API key): those are
set by the operator, never by a request, whatever the plugin. A request naming ``judge_api_base`` made
the anomaly assessor send ``OPENAI_API_KEY`` to the requester's server. The only outbound addresses a
request may name are its participants.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypeVar

import jsonschema
from jsonschema.exceptions import best_match

from green_agent.core.contract import RequestError
from green_agent.core.schemas import load_schema

ConfigT = TypeVar("ConfigT")

MESSAGE_LIMIT = 200
"""Characters of a validation message kept (it quotes the offending value, which may be huge)."""
OPERATOR_SETTING = re.compile(
    r"(?:^|_)(?:model|api_base|base_url|endpoint|url|host)s?$",
    re.IGNORECASE,
)
"""Config key names refused in every request: the model or address of a call the green agent would
make with its own keys (``judge_model``, ``judge_api_base``, ``llm_base_url``, ``grader_endpoint``)."""


def parse_config(cls: type[ConfigT], schema_name: str, raw: Mapping[str, Any] | None) -> ConfigT:
    """``raw`` validated against the schema ``schema_name`` and built into ``cls`` (a dataclass)."""
    schema = load_schema(schema_name)
    values = dict(raw or {})
    refuse_operator_settings(values)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(values), key=lambda e: ([str(p) for p in e.path], str(e.validator)))
    if errors:
        field, reason = describe(errors[0], values, set(schema["properties"]))
        raise RequestError(field, reason)
    return cls(**{key: _value(values.get(key, spec.get("default")), spec) for key, spec in _props(schema)})


def schema_defaults(schema_name: str) -> dict[str, Any]:
    """Every key of the schema with its default, as :func:`parse_config` fills it in."""
    return {key: _value(spec.get("default"), spec) for key, spec in _props(load_schema(schema_name))}


def refuse_operator_settings(raw: Mapping[str, Any]) -> None:
    """Raise :class:`RequestError` for the first key matching :data:`OPERATOR_SETTING`."""
    for key in raw:
        if isinstance(key, str) and OPERATOR_SETTING.search(key):
            raise RequestError(
                f"config.{key[:60]}",
                "refused: models, endpoints and keys the green agent calls with its own credentials are "
                "set by its operator, never by a request (a request may name only its participants)",
            )


def check_shard(shard_index: int, num_shards: int) -> None:
    """The one cross-field rule every sharded plugin shares: ``0 <= shard_index < num_shards``."""
    if shard_index >= num_shards:
        raise RequestError(
            "config.shard_index", f"must be smaller than num_shards ({shard_index} >= {num_shards})"
        )


def describe(error: jsonschema.ValidationError, raw: Mapping[str, Any], known: set[str]) -> tuple[str, str]:
    """``(dotted field, one-line reason)`` of a validation error."""
    path = [str(p) for p in error.path]
    if not path and error.validator == "additionalProperties":
        extra = sorted(set(raw) - known)
        if extra:
            return f"config.{extra[0]}", f"unknown key {extra[0]!r} (allowed: {', '.join(sorted(known))})"
    field = ".".join(["config", *path])
    if error.context:  # oneOf/anyOf: say why the branch of the value's own type failed
        near = [e for e in error.context if e.validator not in ("type", "const")]
        if not near:
            return field, _one_line("; ".join(e.message for e in error.context))
        error = best_match(near)
    if error.validator == "type":
        expected = error.validator_value
        expected = " or ".join(expected) if isinstance(expected, list) else expected
        return field, _one_line(f"must be of type {expected}, got {error.instance!r}")
    if error.validator == "enum":
        allowed = ", ".join(repr(v) for v in error.validator_value)
        return field, _one_line(f"must be one of {allowed}, got {error.instance!r}")
    return field, _one_line(error.message)


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"


def _props(schema: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    return list(schema["properties"].items())


def _value(value: Any, spec: Mapping[str, Any]) -> Any:
    types = spec.get("type", [])
    if (
        isinstance(value, float)
        and value.is_integer()
        and "integer" in ([types] if isinstance(types, str) else types)
    ):
        return int(value)  # JSON numbers may arrive as floats
    return tuple(value) if isinstance(value, list) else value
