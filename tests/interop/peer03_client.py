"""A 0.3-line A2A client (a2a-sdk 0.3.x, run in its own venv), as the AgentBeats runner uses it.

Usage: python peer03_client.py URL REQUEST_JSON {streaming|blocking}
With $A2A_BEARER_TOKEN set, every request carries ``Authorization: Bearer $A2A_BEARER_TOKEN``.
Prints one JSON object: {"state": ..., "artifacts": [{"name", "texts", "data"}], "updates": n}.
"""

import asyncio
import json
import os
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import DataPart, Message, Part, Role, TextPart


async def main(url: str, request: str, mode: str) -> None:
    token = os.environ.get("A2A_BEARER_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(timeout=120, headers=headers) as hc:
        card = await A2ACardResolver(hc, url).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=mode == "streaming", httpx_client=hc)).create(card)
        msg = Message(role=Role.user, message_id=uuid.uuid4().hex, parts=[Part(root=TextPart(text=request))])
        task, updates = None, 0
        async for event in client.send_message(msg):
            if isinstance(event, tuple):
                task, update = event
                updates += update is not None
            else:
                print(json.dumps({"state": "message", "artifacts": [], "updates": updates}))
                return
        artifacts = []
        for a in task.artifacts or []:
            texts = [p.root.text for p in a.parts if isinstance(p.root, TextPart)]
            data = [p.root.data for p in a.parts if isinstance(p.root, DataPart)]
            artifacts.append({"name": a.name, "texts": texts, "data": data})
        print(json.dumps({"state": task.status.state.value, "artifacts": artifacts, "updates": updates}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
