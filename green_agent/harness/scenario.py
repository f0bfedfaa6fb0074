"""Scenario files (docs/harness.md, Scenario files): load, validate fully up-front, return frozen dataclasses.

The harness never interprets ``[config]``: it is checked only for being JSON-representable and is
sent verbatim as the request's ``config``. Every problem raises :class:`ScenarioError` with a
one-line message naming the offending key (``participants[1].endpoint: ...``).
"""

from __future__ import annotations

import datetime as _dt
import math
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0", "::"})
"""Hosts whose ports the harness checks before starting an agent's ``cmd``."""

_TOP_KEYS = {"green_agent", "participants", "config"}
_GREEN_KEYS = {"endpoint", "cmd", "agentbeats_id"}
_PARTICIPANT_KEYS = {"role", "endpoint", "cmd", "agentbeats_id"}


class ScenarioError(ValueError):
    """The scenario file is missing, unparsable or invalid; the message is one line."""


@dataclass(frozen=True)
class AgentSpec:
    """One agent of the scenario: the green agent or a participant."""

    role: str
    """Participant role, or ``green_agent`` for the assessor."""
    endpoint: str
    """Base URL of the agent's A2A server (may carry a path)."""
    argv: tuple[str, ...] | None
    """The ``cmd`` split into arguments, or ``None`` when the agent runs elsewhere."""
    agentbeats_id: str | None = None
    """AgentBeats registry id, copied into the results file (``None`` for local runs)."""

    @property
    def host(self) -> str:
        """Host part of the endpoint."""
        return urlsplit(self.endpoint).hostname or ""

    @property
    def port(self) -> int:
        """Port of the endpoint (80/443 when implicit)."""
        parts = urlsplit(self.endpoint)
        return parts.port or (443 if parts.scheme == "https" else 80)

    @property
    def is_local(self) -> bool:
        """Whether the endpoint is on this machine (its port is checked before starting ``cmd``)."""
        return self.host in LOCAL_HOSTS

    @property
    def card_url(self) -> str:
        """Where the agent card is served."""
        return self.endpoint.rstrip("/") + "/.well-known/agent-card.json"


@dataclass(frozen=True)
class Scenario:
    """A validated scenario file."""

    path: Path
    """The file it was read from."""
    green: AgentSpec
    """The assessor (green) agent."""
    participants: tuple[AgentSpec, ...]
    """Participants in file order; roles are unique."""
    config: Mapping[str, Any] = field(default_factory=dict)
    """The ``[config]`` table, passed verbatim as the request config."""

    @property
    def agents(self) -> tuple[AgentSpec, ...]:
        """The green agent first, then the participants."""
        return (self.green, *self.participants)

    def request(self) -> dict[str, Any]:
        """The AgentBeats assessment request for this scenario."""
        return {
            "participants": {p.role: p.endpoint for p in self.participants},
            "config": dict(self.config),
        }


def _type_name(value: Any) -> str:
    return {str: "string", int: "integer", float: "float", bool: "boolean", list: "array", dict: "table"}.get(
        type(value), type(value).__name__
    )


def _check_keys(where: str, table: Mapping[str, Any], allowed: set[str], required: set[str]) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise ScenarioError(f"{where}: unknown key {extra[0]!r} (allowed: {', '.join(sorted(allowed))})")
    for key in sorted(required):
        if key not in table:
            raise ScenarioError(f"{where}: missing required key {key!r}")


def _string(where: str, value: Any, *, empty_ok: bool = False) -> str:
    if not isinstance(value, str):
        raise ScenarioError(f"{where}: expected a string, got {_type_name(value)}")
    if not empty_ok and not value.strip():
        raise ScenarioError(f"{where}: must not be empty")
    return value


def _endpoint(where: str, value: Any) -> str:
    url = _string(where, value)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ScenarioError(f"{where}: expected an http(s) URL like http://127.0.0.1:9009, got {url!r}")
    try:
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise ScenarioError(f"{where}: bad port in {url!r}") from None
    if parts.query or parts.fragment:
        raise ScenarioError(f"{where}: an endpoint carries no query or fragment, got {url!r}")
    return url


def _argv(where: str, value: Any) -> tuple[str, ...]:
    cmd = _string(where, value)
    try:
        argv = tuple(shlex.split(cmd))
    except ValueError as exc:
        raise ScenarioError(f"{where}: cannot split command ({exc})") from None
    if not argv:
        raise ScenarioError(f"{where}: must not be empty")
    return argv


def _agent(where: str, table: Any, allowed: set[str], role: str | None) -> AgentSpec:
    if not isinstance(table, dict):
        raise ScenarioError(f"{where}: expected a table, got {_type_name(table)}")
    required = {"endpoint"} | ({"role"} if role is None else set())
    _check_keys(where, table, allowed, required)
    if role is None:
        role = _string(f"{where}.role", table["role"])
        if role != role.strip() or any(c.isspace() for c in role):
            raise ScenarioError(f"{where}.role: must not contain whitespace, got {role!r}")
    abid = table.get("agentbeats_id")
    if abid is not None:
        abid = _string(f"{where}.agentbeats_id", abid, empty_ok=True).strip() or None
    return AgentSpec(
        role=role,
        endpoint=_endpoint(f"{where}.endpoint", table["endpoint"]),
        argv=_argv(f"{where}.cmd", table["cmd"]) if "cmd" in table else None,
        agentbeats_id=abid,
    )


def _json_value(where: str, value: Any) -> Any:
    """Reject TOML values JSON cannot carry (dates and times)."""
    if isinstance(value, (_dt.date, _dt.time)):
        raise ScenarioError(f"{where}: dates and times cannot be sent as JSON; quote the value as a string")
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{where}: nan and inf cannot be sent as JSON")
    if isinstance(value, dict):
        return {k: _json_value(f"{where}.{k}", v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_value(f"{where}[{i}]", v) for i, v in enumerate(value)]
    return value


def parse_scenario(data: Mapping[str, Any], path: Path) -> Scenario:
    """Validate a parsed TOML document."""
    _check_keys("scenario", data, _TOP_KEYS, {"green_agent", "participants"})
    green = _agent("green_agent", data["green_agent"], _GREEN_KEYS, role="green_agent")
    raw = data["participants"]
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise ScenarioError("participants: expected one or more [[participants]] tables")
    if not raw:
        raise ScenarioError("participants: at least one [[participants]] table is required")
    participants: list[AgentSpec] = []
    for i, table in enumerate(raw):
        spec = _agent(f"participants[{i}]", table, _PARTICIPANT_KEYS, role=None)
        if any(p.role == spec.role for p in participants):
            raise ScenarioError(f"participants[{i}].role: duplicate role {spec.role!r}")
        participants.append(spec)
    config = data.get("config", {})
    if not isinstance(config, dict):
        raise ScenarioError(f"config: expected a table, got {_type_name(config)}")
    config = _json_value("config", config)
    started: dict[int, str] = {}
    for agent in (green, *participants):
        if agent.argv is not None and agent.is_local:
            name = "green_agent" if agent is green else f"participant {agent.role!r}"
            if agent.port in started:
                raise ScenarioError(f"{name}: port {agent.port} is also used by {started[agent.port]}")
            started[agent.port] = name
    return Scenario(path=path, green=green, participants=tuple(participants), config=config)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; raise :class:`ScenarioError` (one line) on any problem."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ScenarioError("no such file") from None
    except IsADirectoryError:
        raise ScenarioError("is a directory, not a scenario file") from None
    except OSError as exc:
        raise ScenarioError(f"cannot read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError("not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"invalid TOML: {str(exc).splitlines()[0]}") from None
    return parse_scenario(data, path)
