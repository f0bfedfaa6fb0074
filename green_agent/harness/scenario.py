"""Scenario files (docs/harness.md, Scenario files): load, validate fully up-front, return frozen dataclasses.

The harness never interprets ``[config]``: it is checked only for being JSON-representable and is
sent verbatim as the request's ``config``. Every problem raises :class:`ScenarioError` with a
one-line message naming the offending key (``participants[1].endpoint: ...``).
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import re
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
_GREEN_KEYS = {"endpoint", "cmd", "agentbeats_id", "env"}
_PARTICIPANT_KEYS = {"role", "name", "endpoint", "cmd", "agentbeats_id", "env"}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_REFERENCE = re.compile(r"\$\{([^}]*)\}")


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
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Extra environment for ``cmd``, ``${VAR}`` references already filled from the harness's own (kept
    out of ``repr``: the values are often keys)."""

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


def _env(where: str, value: Any, environ: Mapping[str, str] | None) -> dict[str, str]:
    """The template's ``env`` table; ``${VAR}`` is filled from ``environ``, as the template's workflow
    fills it from repository secrets, so a key is named in the file and never written there. With no
    ``environ`` (an agent the harness does not start) references are checked but left unfilled."""
    if not isinstance(value, dict):
        raise ScenarioError(f"{where}: expected a table, got {_type_name(value)}")
    env: dict[str, str] = {}
    for key, raw in value.items():
        if not _ENV_NAME.fullmatch(key):
            raise ScenarioError(f"{where}: {key!r} is not an environment variable name")
        text = _string(f"{where}.{key}", raw, empty_ok=True)

        def fill(match: re.Match[str], key: str = key) -> str:
            name = match.group(1)
            if not _ENV_NAME.fullmatch(name):
                raise ScenarioError(f"{where}.{key}: ${{{name}}} is not a variable reference")
            if environ is None:
                return match.group(0)
            if name not in environ:
                raise ScenarioError(f"{where}.{key}: ${{{name}}} is not set in the environment")
            return environ[name]

        env[key] = _ENV_REFERENCE.sub(fill, text)
    return env


def _role(where: str, table: Mapping[str, Any]) -> str:
    """``role`` (the tutorial's key) or ``name`` (the leaderboard template's, which its workflow uses
    as the role); when both are given they must agree, so one file never means two things."""
    if "role" not in table and "name" not in table:
        raise ScenarioError(f"{where}: missing required key 'role' (or the template's 'name')")
    key = "role" if "role" in table else "name"
    role = _string(f"{where}.{key}", table[key])
    if "role" in table and "name" in table and _string(f"{where}.name", table["name"]) != role:
        raise ScenarioError(
            f"{where}.name: {table['name']!r} differs from role {role!r}; they name the same seat"
        )
    if role != role.strip() or any(c.isspace() for c in role):
        raise ScenarioError(f"{where}.{key}: must not contain whitespace (it is the role), got {role!r}")
    return role


def _agent(
    where: str, table: Any, allowed: set[str], role: str | None, environ: Mapping[str, str]
) -> AgentSpec:
    if not isinstance(table, dict):
        raise ScenarioError(f"{where}: expected a table, got {_type_name(table)}")
    _check_keys(where, table, allowed, set())
    if "endpoint" not in table:
        raise ScenarioError(
            f"{where}: missing required key 'endpoint' (an AgentBeats id alone names an image the platform "
            "runs; to run locally add endpoint, and cmd to start it)"
        )
    if role is None:
        role = _role(where, table)
    abid = table.get("agentbeats_id")
    if abid is not None:
        abid = _string(f"{where}.agentbeats_id", abid, empty_ok=True).strip() or None
    argv = _argv(f"{where}.cmd", table["cmd"]) if "cmd" in table else None
    env = _env(f"{where}.env", table.get("env", {}), environ if argv is not None else None)
    return AgentSpec(
        role=role,
        endpoint=_endpoint(f"{where}.endpoint", table["endpoint"]),
        argv=argv,
        agentbeats_id=abid,
        env=env if argv is not None else {},
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
    """Validate a parsed TOML document; this process's environment fills ``env`` references."""
    environ = os.environ
    _check_keys("scenario", data, _TOP_KEYS, {"green_agent", "participants"})
    green = _agent("green_agent", data["green_agent"], _GREEN_KEYS, role="green_agent", environ=environ)
    raw = data["participants"]
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        raise ScenarioError("participants: expected one or more [[participants]] tables")
    if not raw:
        raise ScenarioError("participants: at least one [[participants]] table is required")
    participants: list[AgentSpec] = []
    for i, table in enumerate(raw):
        spec = _agent(f"participants[{i}]", table, _PARTICIPANT_KEYS, role=None, environ=environ)
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
