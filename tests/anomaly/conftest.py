"""Helpers for the anomaly tests: serve the green agent and participants for real, run one assessment."""

from __future__ import annotations

import asyncio
import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from green_agent.core.contract import AssessorContext
from green_agent.kit.client.messages import OutboundMessage, Reply
from green_agent.kit.client.transport import A2ATransport
from green_agent.service.server import create_app, load_assessor
from tests.support.servers import free_port, running_app
from white_agents.anomaly_baseline.agent_server import create_participant_app


def participant_app(factory: Any, name: str = "test participant") -> tuple[Any, int]:
    port = free_port()
    return create_participant_app(factory, name=name, description=name, url=f"http://127.0.0.1:{port}/"), port


def assess(run_dir: Path, apps: dict[str, tuple[Any, int]], config: dict[str, Any]) -> Reply:
    """Run one assessment through a real green agent; return the folded reply (Result artifact parts)."""
    gport = free_port()
    green = create_app(
        load_assessor("anomaly", AssessorContext(run_dir=run_dir)), f"http://127.0.0.1:{gport}/"
    )
    with ExitStack() as stack:
        green_url = stack.enter_context(running_app(green, gport))
        urls = {role: stack.enter_context(running_app(app, port)) for role, (app, port) in apps.items()}

        async def go() -> Reply:
            async with A2ATransport() as transport:
                body = json.dumps({"participants": urls, "config": config})
                return await transport.send(green_url, OutboundMessage(body), max_response_bytes=1 << 26)

        return asyncio.run(go())


def participant_parts(reply: Reply) -> dict[str, dict[str, Any]]:
    return {d["role"]: d for d in reply.data if d.get("kind") == "participant"}
