"""A2A ``CancelTask`` against a real server, and the processes a test started (for cancel tests)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import CancelTaskRequest, GetTaskRequest, Message, SendMessageRequest, Task

from tests.support.timing import eventually, scaled


async def cancel_once(url: str, message: Message, ready: Callable[[], bool]) -> tuple[Task, Task]:
    """Stream ``message`` to the agent at ``url``; once it named its task and ``ready()`` holds, cancel it.

    Returns the task as ``CancelTask`` answered it and as ``GetTask`` reads it afterwards.
    """
    async with httpx.AsyncClient(timeout=scaled(60)) as http:
        card = await A2ACardResolver(http, url.rstrip("/")).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)
        task_ids: asyncio.Queue[str] = asyncio.Queue()

        async def read() -> None:
            async for event in client.send_message(SendMessageRequest(message=message)):
                if event.WhichOneof("payload") == "task":
                    task_ids.put_nowait(event.task.id)

        reader = asyncio.create_task(read())
        try:
            task_id = await asyncio.wait_for(task_ids.get(), scaled(30))
            await eventually(ready, "the agent to reach the point where the test cancels", within_s=60)
            canceled = await client.cancel_task(CancelTaskRequest(id=task_id))
            stored = await client.get_task(GetTaskRequest(id=task_id))
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            await client.close()
    return canceled, stored


def descendants(pid: int | None = None) -> set[int]:
    """Live (not zombie) processes below ``pid`` (default: this test process), read from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {os.getpid() if pid is None else pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found
