"""The scenario file's format: a strict pydantic model of ``scenario.toml`` (docs/harness.md, Scenario files).

:class:`ScenarioFile` is the one statement of the format: the harness validates every file with it
(:func:`green_agent.harness.scenario.load_scenario`), and its JSON Schema ships as
``green_agent/harness/schemas/scenario.schema.json`` for editors and readers outside Python
(regenerate with ``python -m green_agent.harness.scenario_file --write``; a test fails when the file and
the model differ). :func:`describe` words the first error as one line naming the key
(``participants[1].endpoint: expected a string, got integer``). Rules JSON Schema cannot state (a
command that splits, a port given once, no dates in ``[config]``) are validators here too.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticCustomError

from green_agent.kit.schema_files import schema_command
from green_agent.kit.toml_files import StrictTable, first_error, mismatch

SCHEMA_FILE = Path(__file__).parent / "schemas" / "scenario.schema.json"
"""The generated JSON Schema of :class:`ScenarioFile`, shipped for editors and readers outside Python."""
ENV_REFERENCE = re.compile(r"\$\{([^}]*)\}")
"""A ``${VAR}`` reference in an ``env`` value."""
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PLACED = "scenario_at"
"""Error type of a message that starts with its own place (a rule across tables)."""
_MISSING_HINTS = {
    "endpoint": " (an AgentBeats id alone names an image the platform runs; to run locally add endpoint,"
    " and cmd to start it)"
}


def _bad(message: str, where: str | None = None) -> PydanticCustomError:
    """A rule of the file broken; ``where`` names the place when it is not the value being validated
    (the message then starts with it: no context, so no text of the file is ever taken for a template)."""
    if where is None:
        return PydanticCustomError("scenario", message)
    return PydanticCustomError(_PLACED, f"{where}: {message}")


def _text(value: str) -> str:
    if not value.strip():
        raise _bad("must not be empty")
    return value


def _endpoint(url: str) -> str:
    parts = urlsplit(_text(url))
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _bad(f"expected an http(s) URL like http://127.0.0.1:9009, got {url!r}")
    try:
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise _bad(f"bad port in {url!r}") from None
    if parts.query or parts.fragment:
        raise _bad(f"an endpoint carries no query or fragment, got {url!r}")
    return url


def _command(cmd: str) -> str:
    try:
        argv = shlex.split(cmd)
    except ValueError as exc:
        raise _bad(f"cannot split command ({exc})") from None
    if not argv:
        raise _bad("must not be empty")
    return cmd


def _role(role: str) -> str:
    if any(c.isspace() for c in _text(role)):
        raise _bad(f"must not contain whitespace (it is the role), got {role!r}")
    return role


def _env_name(name: str) -> str:
    if not _ENV_NAME.fullmatch(name):
        raise _bad(f"{name!r} is not an environment variable name")
    return name


def _env_value(text: str) -> str:
    for name in ENV_REFERENCE.findall(text):
        if not _ENV_NAME.fullmatch(name):
            raise _bad(f"${{{name}}} is not a variable reference")
    return text


def _json_value(where: str, value: Any) -> None:
    """Refuse TOML values JSON cannot carry (dates and times, nan and inf)."""
    if isinstance(value, (_dt.date, _dt.time)):
        raise _bad("dates and times cannot be sent as JSON; quote the value as a string", where)
    if isinstance(value, float) and not math.isfinite(value):
        raise _bad("nan and inf cannot be sent as JSON", where)
    if isinstance(value, dict):
        for key, item in value.items():
            _json_value(f"{where}.{key}", item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _json_value(f"{where}[{index}]", item)


def _participant_tables(value: Any) -> Any:
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise _bad("expected one or more [[participants]] tables")
    if not value:
        raise _bad("at least one [[participants]] table is required")
    return value


Endpoint = Annotated[str, AfterValidator(_endpoint), Field(json_schema_extra={"pattern": "^https?://"})]
Command = Annotated[
    str, AfterValidator(_text), AfterValidator(_command), Field(json_schema_extra={"pattern": r"\S"})
]
Role = Annotated[str, AfterValidator(_role), Field(json_schema_extra={"pattern": r"^\S+$"})]
EnvName = Annotated[str, AfterValidator(_env_name)]
EnvValue = Annotated[str, AfterValidator(_env_value)]


class AgentTable(StrictTable):
    """Keys every agent's table has (``[green_agent]`` and each ``[[participants]]``)."""

    endpoint: Endpoint
    """Base URL of the agent's A2A server (http or https; may carry a path)."""
    cmd: Command | None = None
    """How to start the agent (split like a shell would, run without one); absent: it runs elsewhere."""
    agentbeats_id: str | None = None
    """AgentBeats registry id, copied into the results file."""
    env: dict[EnvName, EnvValue] = Field(
        default_factory=dict, json_schema_extra={"propertyNames": {"pattern": f"^{_ENV_NAME.pattern}$"}}
    )
    """Extra environment for ``cmd``; ``${VAR}`` is filled from the harness's own environment."""

    @field_validator("agentbeats_id")
    @classmethod
    def _blank_is_none(cls, value: str | None) -> str | None:
        return None if value is None else value.strip() or None

    def argv(self) -> tuple[str, ...] | None:
        """``cmd`` split into arguments, or None."""
        return None if self.cmd is None else tuple(shlex.split(self.cmd))


class GreenAgentTable(AgentTable):
    """The ``[green_agent]`` table: the assessor."""

    model_config = ConfigDict(title="green agent")


class ParticipantTable(AgentTable):
    """One ``[[participants]]`` table."""

    model_config = ConfigDict(
        title="participant", json_schema_extra={"anyOf": [{"required": ["role"]}, {"required": ["name"]}]}
    )

    role: Role | None = None
    """The participant's role: unique, no whitespace (``role`` or the leaderboard template's ``name``)."""
    name: Role | None = None
    """The leaderboard template's word for ``role``; when both are given they must agree."""

    @field_validator("name")
    @classmethod
    def _same_seat(cls, name: str | None, info: ValidationInfo) -> str | None:
        role = info.data.get("role")
        if name is not None and role is not None and name != role:
            raise _bad(f"{name!r} differs from role {role!r}; they name the same seat")
        return name

    @model_validator(mode="after")
    def _has_role(self) -> ParticipantTable:
        if self.role is None and self.name is None:
            raise _bad("missing required key 'role' (or the template's 'name')")
        return self

    @property
    def seat(self) -> str:
        """The role, whichever key named it."""
        return self.role or self.name or ""


class ScenarioFile(StrictTable):
    """An agentbeats scenario file (docs/harness.md, Scenario files), as TOML; the harness validates it
    with this model before starting anything."""

    model_config = ConfigDict(
        title="AgentBeats scenario",
        json_schema_extra={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://github.com/agentified-assessment/schemas/scenario.schema.json",
        },
    )

    green_agent: GreenAgentTable
    """The assessor (green) agent."""
    participants: Annotated[list[ParticipantTable], BeforeValidator(_participant_tables), Field(min_length=1)]
    """The participants, in file order; roles are unique."""
    config: dict[str, Any] = Field(default_factory=dict)
    """Sent verbatim as the request's ``config`` (values JSON can carry: no dates or times, no nan)."""

    @field_validator("config")
    @classmethod
    def _as_json(cls, config: dict[str, Any]) -> dict[str, Any]:
        _json_value("config", config)
        return config

    @model_validator(mode="after")
    def _unique_roles(self) -> ScenarioFile:
        seen: set[str] = set()
        for index, table in enumerate(self.participants):
            if table.seat in seen:
                raise _bad(f"duplicate role {table.seat!r}", f"participants[{index}].role")
            seen.add(table.seat)
        return self


def _place(loc: tuple[str | int, ...]) -> str:
    """``participants[1].env.KEY`` for pydantic's ``('participants', 1, 'env', 'KEY')``."""
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")
    return text or "scenario"


def _table(loc: tuple[str | int, ...]) -> type[BaseModel]:
    return ScenarioFile if not loc else GreenAgentTable if loc[0] == "green_agent" else ParticipantTable


def describe(errors: Sequence[ErrorDetails]) -> str:
    """The first error as ``place: reason`` (docs/harness.md words them)."""
    error = first_error(errors)
    loc, kind = tuple(error["loc"]), error["type"]
    if kind in ("extra_forbidden", "missing"):
        where, key = loc[:-1], loc[-1]
        if kind == "extra_forbidden":
            allowed = ", ".join(sorted(_table(where).model_fields))
            return f"{_place(where)}: unknown key {key!r} (allowed: {allowed})"
        return f"{_place(where)}: missing required key {key!r}{_MISSING_HINTS.get(str(key), '')}"
    if kind == _PLACED:
        return error["msg"]
    if loc[-1:] == ("[key]",):
        loc = loc[:-2]  # a bad key of a table: the message quotes the key
    return f"{_place(loc)}: {mismatch(error) or error['msg']}"


if __name__ == "__main__":
    sys.exit(schema_command(ScenarioFile.model_json_schema(), SCHEMA_FILE))
