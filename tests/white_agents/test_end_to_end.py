"""The green agent assesses the CoT and auto-formalization agents (z3py and fol) on the embedded sample
over real A2A, with a fake LLM that answers each task correctly: CoT from the gold label, the
formalizers from the gold FOL (the z3py program rebuilds it from SMT-LIB, so it still goes through the
sandbox, the export epilogue and the trusted solver)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import SendMessageRequest

from green_agent.kit.client.task_fold import TaskFold
from green_agent.kit.parts import user_message
from tests.support.fake_llm import fake_llm
from tests.support.schemas import shipped_schema as load_schema
from tests.support.timing import scaled
from tests.white_agents.helpers import oracle, sample_items, serve, settings

pytestmark = pytest.mark.slow

LIMIT = 6


async def _assess(url: str, request: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one assessment on the green agent at ``url``; the data parts of its ``Result`` artifact."""
    fold = TaskFold()
    async with httpx.AsyncClient(timeout=scaled(300)) as hc:
        card = await A2ACardResolver(hc, url.rstrip("/")).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=True, httpx_client=hc)).create(card)
        async for event in client.send_message(SendMessageRequest(message=user_message(json.dumps(request)))):
            fold.add(event)
        await client.close()
    return [d for a in fold.artifacts.values() if a.name == "Result" for d in a.data]


async def test_green_agent_assesses_llm_agents_on_the_sample(tmp_path: Path) -> None:
    from green_agent.core.contract import AssessorContext
    from green_agent.service.server import create_app as green_app
    from green_agent.service.server import load_assessor
    from white_agents.autoformalizer.agent import AutoformalizerAgent
    from white_agents.autoformalizer.agent import create_app as af_app
    from white_agents.autoformalizer.fol_mode import FolMode
    from white_agents.autoformalizer.z3py_mode import Z3PyMode
    from white_agents.common.llm import MeteredLLMClient
    from white_agents.cot.agent import CotAgent
    from white_agents.cot.agent import create_app as cot_app

    items = sample_items()
    with fake_llm(default=oracle(items)) as fake:
        llm = MeteredLLMClient(settings(fake))
        assessor = load_assessor("folio", AssessorContext(run_dir=tmp_path))
        with (
            serve(lambda url: cot_app(CotAgent(llm), url)) as cot_url,
            serve(lambda url: af_app(AutoformalizerAgent(llm, Z3PyMode()), url)) as z3_url,
            serve(lambda url: af_app(AutoformalizerAgent(llm, FolMode()), url)) as fol_url,
            serve(lambda url: green_app(assessor, url)) as green_url,
        ):
            request = {
                "participants": {"cot": cot_url, "autoformalizer": z3_url, "autoformalizer_fol": fol_url},
                "config": {"dataset": "folio-sample", "limit": LIMIT},
            }
            parts = await _assess(green_url, request)
    by_role = {p["role"]: p for p in parts if "role" in p}
    assert set(by_role) == {"cot", "autoformalizer", "autoformalizer_fol"}
    for role, part in by_role.items():
        assert part["total"] == LIMIT, role
        assert part["correct"] == LIMIT, (role, part["items"])
        assert part["accuracy"] == 1.0 and part["score"] == 100.0
        assert part["runtime_error"] == 0 and part["parse_error"] == 0
        # the agents' reported usage reaches the items and the cost summary (the fake LLM: 11 + 7 tokens)
        assert all(it["usage"]["prompt_tokens"] == 11 for it in part["items"]), role
        assert (
            part["usage"]["prompt_tokens"] == 11 * LIMIT and part["usage"]["completion_tokens"] == 7 * LIMIT
        )
        # the model each agent declares (card extension, and each answer) is in the result
        prompt = "cot-" if role == "cot" else "autoformalizer-"
        assert part["llm"]["model"] == "openai/test" and part["llm"]["provider"] == "openai", role
        assert part["llm"]["temperature"] == 0.0 and part["llm"]["prompt_version"].startswith(prompt)
        assert part["reproducibility"]["participants"][role]["llm"] == part["llm"]
        assert all(it["model"] == "openai/test" for it in part["items"]), role
    fol_prompts = by_role["autoformalizer_fol"]["llm"]["prompt_version"]
    assert fol_prompts.startswith("autoformalizer-fol-")
    assert fol_prompts != by_role["autoformalizer"]["llm"]["prompt_version"]
    assert len(fake.requests) == 3 * LIMIT
    jsonschema.validate(parts, load_schema("folio-result"))
