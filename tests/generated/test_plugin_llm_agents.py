"""The LLM participants run on generated items unchanged (the task is FOLIO's): the chain-of-thought agent
and the auto-formalizer in both modes (z3py, through its sandbox; fol), over real A2A, on a scripted
OpenAI-compatible endpoint that answers each item from what the generator made (the label for CoT,
the FOL for the formalizers). Without ``expose_fol``: the agents see only the English."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest

from green_agent.generated import generate_items, parse_knobs
from tests.generated.served import assess, by_role, generated_green
from tests.support.fake_llm import fake_llm
from tests.support.schemas import shipped_schema
from tests.white_agents.helpers import oracle, serve, settings

pytestmark = pytest.mark.slow

KNOBS = {"count": 6, "depth": "2,7", "distractors": "0-4"}
SEED = 12


async def test_cot_and_autoformalizer_agents_run_on_generated_items(tmp_path: Path) -> None:
    from white_agents.autoformalizer.agent import AutoformalizerAgent
    from white_agents.autoformalizer.agent import create_app as af_app
    from white_agents.autoformalizer.fol_mode import FolMode
    from white_agents.autoformalizer.z3py_mode import Z3PyMode
    from white_agents.common.llm import MeteredLLMClient
    from white_agents.cot.agent import CotAgent
    from white_agents.cot.agent import create_app as cot_app

    items = list(generate_items(parse_knobs(**KNOBS), SEED).items)
    with fake_llm(default=oracle(items)) as fake:
        llm = MeteredLLMClient(settings(fake))
        with (
            serve(lambda url: cot_app(CotAgent(llm), url)) as cot,
            serve(lambda url: af_app(AutoformalizerAgent(llm, Z3PyMode()), url)) as z3py,
            serve(lambda url: af_app(AutoformalizerAgent(llm, FolMode()), url)) as fol,
            generated_green(tmp_path / "runs") as green,
        ):
            participants = {"cot": cot, "autoformalizer": z3py, "autoformalizer_fol": fol}
            reply = await assess(green, participants, {**KNOBS, "seed": SEED})
    jsonschema.validate(reply.data, shipped_schema("generated-result"))
    parts = by_role(reply)
    assert set(parts) == set(participants)
    for role, part in parts.items():
        assert (part["total"], part["correct"]) == (6, 6), (role, part["items"])
        assert part["parse_error"] == part["runtime_error"] == part["timeout"] == 0, role
        assert {d: s["total"] for d, s in part["per_depth"].items()} == {"2": 3, "7": 3}, role
    assert len(fake.requests) == 3 * 6
    prompts = [r["messages"][1]["content"] for r in fake.requests]
    assert all("premises_fol" not in p and "∀" not in p for p in prompts)  # English only
