"""The real green agent serving the generated plugin over A2A, in this process, for the plugin's tests."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from green_agent.core.contract import AssessorContext
from green_agent.kit.client.messages import Reply
from green_agent.kit.server.limits import ServerLimits
from green_agent.service.server import create_app, load_assessor
from tests.support.green_process import ask
from tests.support.servers import free_port, running_app


@contextmanager
def generated_green(run_dir: Path, limits: ServerLimits | None = None) -> Iterator[str]:
    """``--assessor generated`` served on a free port; yields its URL."""
    port = free_port()
    assessor = load_assessor("generated", AssessorContext(run_dir=run_dir))
    with running_app(create_app(assessor, f"http://127.0.0.1:{port}/", limits), port) as url:
        yield url


async def assess(green: str, participants: Mapping[str, str], config: Mapping[str, Any]) -> Reply:
    """One assessment request; the folded reply (``TransportError`` when it is rejected)."""
    return await ask(green, {"participants": dict(participants), "config": dict(config)})


def by_role(reply: Reply) -> dict[str, dict[str, Any]]:
    """The participant parts of a result, by role."""
    return {p["role"]: p for p in reply.data if p.get("kind") == "participant"}
