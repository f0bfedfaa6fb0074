"""Scenario files (docs/harness.md, Scenario files): load, validate fully up-front, return frozen dataclasses.

The file's format is :class:`~green_agent.harness.scenario_file.ScenarioFile`, a strict pydantic model
(with the generated JSON Schema). The harness never interprets ``[config]``: it is checked only for
being JSON-representable and is sent verbatim as the request's ``config``. Every problem raises
:class:`ScenarioError` with a one-line message naming the offending key (``participants[1].endpoint: ...``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from green_agent.harness.scenario_file import ENV_REFERENCE, AgentTable, ScenarioFile, describe
from green_agent.kit.errors import InputError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "0.0.0.0", "::"})
"""Hosts whose ports the harness checks before starting an agent's ``cmd``."""


class ScenarioError(InputError, ValueError):
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


def _agent(role: str, table: AgentTable, environ: Mapping[str, str], where: str) -> AgentSpec:
    argv = table.argv()
    return AgentSpec(
        role=role,
        endpoint=table.endpoint,
        argv=argv,
        agentbeats_id=table.agentbeats_id,
        env={} if argv is None else _filled(table.env, environ, f"{where}.env"),
    )


def _filled(env: Mapping[str, str], environ: Mapping[str, str], where: str) -> dict[str, str]:
    """The ``env`` table with ``${VAR}`` filled from ``environ``, as the template's workflow fills it from
    repository secrets, so a key is named in the file and never written there."""

    filled: dict[str, str] = {}
    for key, text in env.items():

        def fill(match: re.Match[str], key: str = key) -> str:
            if match.group(1) not in environ:
                raise ScenarioError(f"{where}.{key}: {match.group(0)} is not set in the environment")
            return environ[match.group(1)]

        filled[key] = ENV_REFERENCE.sub(fill, text)
    return filled


def parse_scenario(data: Mapping[str, Any], path: Path) -> Scenario:
    """Validate a parsed TOML document; this process's environment fills ``env`` references."""
    try:
        file = ScenarioFile.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(describe(exc.errors())) from None
    environ = os.environ
    green = _agent("green_agent", file.green_agent, environ, "green_agent")
    participants = tuple(
        _agent(table.seat, table, environ, f"participants[{i}]") for i, table in enumerate(file.participants)
    )
    started: dict[int, str] = {}
    for agent in (green, *participants):
        if agent.argv is not None and agent.is_local:
            name = "green_agent" if agent is green else f"participant {agent.role!r}"
            if agent.port in started:
                raise ScenarioError(f"{name}: port {agent.port} is also used by {started[agent.port]}")
            started[agent.port] = name
    return Scenario(path=path, green=green, participants=participants, config=file.config)


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
