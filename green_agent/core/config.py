"""An assessor's config: one pydantic model per plugin that both validates a request and states its schema.

A plugin declares its config as a subclass of :class:`ConfigModel`: each field's type, bounds, default
and docstring are the one source of the keys. :func:`validate_config` checks a request's ``config``
against it and turns the first violation into a one-line
:class:`~green_agent.core.contract.RequestError` naming the dotted field
(``config.timeout_s: must be of type number, got 'fast'``); :mod:`green_agent.core.config_errors` words
it. ``Model.model_json_schema()`` is the same contract as a JSON Schema, shipped as
``<plugin>/schemas/<plugin>-config.schema.json`` for readers outside Python (regenerate with
``python -m green_agent.<plugin>.config --write``; a test fails when the file and the model differ).

The base is as strict as a JSON Schema: unknown keys are refused, a bool is not a number, a string is not
a number, NaN and infinities are refused. Two things JSON transport does are undone: an integral float
(``5.0``: A2A data parts carry every number as a float) is accepted for an integer key and becomes an int,
and arrays become tuples. A number key keeps an int as an int (``120``, not ``120.0``), so a config
records, hashes and renders exactly as it was sent.

The fields every plugin on the unit runner shares live in one place: :class:`RunConfig` (the per-call
budget, concurrency, ``resume``) and :class:`ShardedConfig` (AgentBeats' sharding keys on top), each
with one set of bounds. A plugin extends one of them; to change a shared field's default it redeclares
the field with the same type (``timeout_s: Timeout = 60``), so the bounds stay the shared ones.

Before the model, :func:`refuse_operator_settings` turns away any key that names something the green
agent would call with its operator's credentials (an LLM's model or endpoint, an API key): those are
set by the operator, never by a request, whatever the plugin. A request naming ``judge_api_base`` made
the anomaly assessor send ``OPENAI_API_KEY`` to the requester's server. The only outbound addresses a
request may name are its participants.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    ValidationError,
    WrapValidator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from green_agent.core.config_errors import describe
from green_agent.core.contract import RequestError
from green_agent.kit import schema_files
from green_agent.kit.client.calls import Budget

OPERATOR_SETTING = re.compile(
    r"(?:^|_)(?:model|api_base|base_url|endpoint|url|host)s?$",
    re.IGNORECASE,
)
"""Config key names refused in every request: the model or address of a call the green agent would
make with its own keys (``judge_model``, ``judge_api_base``, ``llm_base_url``, ``grader_endpoint``)."""


class ConfigModel(BaseModel):
    """Base of every plugin's config: frozen, strict, closed, finite (see the module docstring)."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        allow_inf_nan=False,
        use_attribute_docstrings=True,
    )

    @model_validator(mode="before")
    @classmethod
    def _as_json_arrives(cls, data: Any) -> Any:
        """Arrays as tuples; integral floats of integer keys as ints (the only two leniencies)."""
        if not isinstance(data, Mapping):
            return data
        integers = _integer_fields(cls)
        return {key: _from_json(value, key in integers) for key, value in data.items()}

    def as_dict(self) -> dict[str, Any]:
        """Every field in declaration order, JSON-serialisable (the reproducibility block)."""
        return self.model_dump()

    def identity(self) -> dict[str, Any]:
        """The fields that define the assessment (all but ``resume``), for the journal id."""
        values = self.as_dict()
        values.pop("resume", None)
        return values

    def check(self) -> None:
        """Cross-field rules a JSON Schema cannot state; raise :class:`RequestError` naming the field
        (:func:`validate_config` calls it once the fields are valid). Default: none."""


ConfigT = TypeVar("ConfigT", bound=ConfigModel)
JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_config(title: str, schema_id: str) -> ConfigDict:
    """A plugin config's ``model_config``: the title, dialect and ``$id`` of its shipped JSON Schema
    (pydantic merges it with the base's settings)."""
    return ConfigDict(title=title, json_schema_extra={"$schema": JSON_SCHEMA_DIALECT, "$id": schema_id})


def _keep_int(value: Any, validate: Callable[[Any], Any]) -> Any:
    checked = validate(value)
    return value if type(value) is int else checked


KEEP_INT = WrapValidator(_keep_int)
"""Marker of a number key that returns an int unchanged; put it after the bounds when the key is
nullable (``Annotated[float, Field(gt=0), KEEP_INT] | None``), or pydantic cannot write the bounds
into the JSON Schema."""
Number = Annotated[float, KEEP_INT]
"""A JSON number (an int stays an int, a float a float; never a bool, NaN or an infinity)."""


class UniqueItems:
    """Annotated marker: an array with no repeated item (``uniqueItems`` in the JSON Schema)."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(_unique, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema["uniqueItems"] = True
        return json_schema


UNIQUE = UniqueItems()

ShardIndex = Annotated[int, Field(ge=0)]
"""AgentBeats' ``shard_index``: this shard, ``0 <= shard_index < num_shards`` (:func:`check_shard`)."""
NumShards = Annotated[int, Field(ge=1)]
"""AgentBeats' ``num_shards``: units whose index ≡ shard_index (mod num_shards) are assessed."""
NumInstances = Annotated[int, Field(ge=1)] | None
"""AgentBeats' ``num_instances``: only the first N units, split across all shards; None: every unit."""
Timeout = Annotated[float, Field(gt=0, le=86_400), KEEP_INT]
"""Seconds of one call to a participant, retries included: more than 0, at most a day."""
Retries = Annotated[int, Field(ge=0, le=10)]
"""Retries of a call after a retryable transport fault."""
Concurrency = Annotated[int, Field(ge=1, le=256)]
"""Units in flight at once, per participant."""
ResponseBytes = Annotated[int, Field(ge=1024, le=1 << 30)]
"""Largest reply accepted: 1 KiB to 1 GiB."""


class RunConfig(ConfigModel):
    """The config fields every plugin on the unit runner has, with their one set of bounds; a plugin's
    config extends it (or :class:`ShardedConfig`) and may redeclare a default with the same type."""

    timeout_s: Timeout = 120
    """Wall-clock budget of one call to one participant (a FOLIO item, an anomaly turn), retries included."""
    max_retries: Retries = 2
    """Retries after a retryable transport fault (never after a failed task or a timeout)."""
    concurrency: Concurrency = 8
    """Units (items, episodes) in flight at once, per participant."""
    max_response_bytes: ResponseBytes = 1 << 20
    """Largest reply accepted from a participant."""
    resume: bool = False
    """Continue the journal of an earlier run of this request against the same agents (same cards)."""

    def budget(self) -> Budget:
        """The budget of one call these settings describe."""
        return Budget(
            timeout_s=self.timeout_s, max_retries=self.max_retries, max_response_bytes=self.max_response_bytes
        )

    @property
    def run_deadline_s(self) -> float | None:
        """The whole run's deadline in seconds, or ``None``; a config with a ``deadline_s`` key returns it."""
        return None


class ShardedConfig(RunConfig):
    """:class:`RunConfig` plus AgentBeats' sharding keys; the plugin applies them to its units."""

    shard_index: ShardIndex = 0
    """This shard's index, 0 <= shard_index < num_shards."""
    num_shards: NumShards = 1
    """With num_shards > 1 only the units whose index ≡ shard_index (mod num_shards) are assessed."""
    num_instances: NumInstances = None
    """AgentBeats' num_instances: only the first N units in the benchmark's own order (FOLIO: file order;
    anomaly: planned order), split across all shards."""

    def check(self) -> None:
        check_shard(self.shard_index, self.num_shards)


def validate_config(model: type[ConfigT], raw: Mapping[str, Any] | None) -> ConfigT:
    """``raw`` checked against ``model`` (then its :meth:`~ConfigModel.check`); raise
    :class:`RequestError` naming the first bad field."""
    values = dict(raw or {})
    refuse_operator_settings(values)
    try:
        config = model.model_validate(values)
    except ValidationError as exc:
        field, reason = describe(exc.errors(), values, model_schema(model))
        raise RequestError(field, reason) from None
    config.check()
    return config


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


@cache
def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """``model.model_json_schema()``, made once per model (do not mutate)."""
    return model.model_json_schema()


def schema_text(model: type[BaseModel]) -> str:
    """The JSON Schema file of ``model`` as shipped (:func:`green_agent.kit.schema_files.schema_text`)."""
    return schema_files.schema_text(model.model_json_schema())


def schema_command(model: type[BaseModel], path: Path, argv: Sequence[str]) -> int:
    """``python -m green_agent.<plugin>.config [--write]``: print the schema, or rewrite the shipped file."""
    return schema_files.schema_command(model.model_json_schema(), path, argv, prog="<plugin>.config")


@cache
def _integer_fields(model: type[BaseModel]) -> frozenset[str]:
    return frozenset(name for name, info in model.model_fields.items() if _mentions_int(info.annotation))


def _mentions_int(annotation: Any) -> bool:
    return annotation is int or any(_mentions_int(arg) for arg in get_args(annotation))


def _from_json(value: Any, integer: bool) -> Any:
    if isinstance(value, list):  # one level: an array of arrays is a type error anyway, no recursion
        return tuple(value)
    if integer and isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _unique(items: tuple[Any, ...]) -> tuple[Any, ...]:
    if len(set(items)) != len(items):  # items are validated strings by now: hashable
        raise PydanticCustomError("non_unique", "has non-unique elements")
    return items
