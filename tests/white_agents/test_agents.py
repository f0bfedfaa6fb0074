"""White agents over real A2A, with litellm's real HTTP path against a scripted endpoint,
the real sandbox and real Z3."""

from __future__ import annotations

import pytest

from tests.support.fake_llm import fake_llm
from tests.white_agents.helpers import GOOD_FOL, GOOD_PROGRAM, send_task, serve, settings
from white_agents.autoformalizer.agent import AutoformalizerAgent
from white_agents.autoformalizer.agent import create_app as af_app
from white_agents.autoformalizer.fol_mode import FolMode
from white_agents.autoformalizer.z3py_mode import Z3PyMode
from white_agents.common.llm import MeteredLLMClient
from white_agents.cot.agent import CotAgent
from white_agents.cot.agent import create_app as cot_app

pytestmark = pytest.mark.slow


def cot(fake, **kw):
    return lambda url: cot_app(CotAgent(MeteredLLMClient(settings(fake, **kw))), url)


def autoformalizer(fake, mode=None, **kw):
    llm_kw = {k: kw.pop(k) for k in list(kw) if k in ("request_timeout_s", "retries")}
    agent = AutoformalizerAgent(
        MeteredLLMClient(settings(fake, **llm_kw)), mode or Z3PyMode(sandbox_timeout_s=5), **kw
    )
    return lambda url: af_app(agent, url)


# ---- CoT -----------------------------------------------------------------------------------------


async def test_cot_correct_answer_carries_label_and_usage():
    reply = "Rex is a dog.\nAll dogs are animals, so Rex is an animal.\nAnswer: True"
    with fake_llm([reply]) as fake, serve(cot(fake)) as url:
        result = await send_task(url)
    assert result.state == "completed"
    assert result.text == reply
    [data] = result.data
    assert data["label"] == "True"
    assert data["usage"]["prompt_tokens"] == 11 and data["usage"]["completion_tokens"] == 7
    assert data["usage"]["cost_usd"] is None  # no price known for the fake model
    assert data["diagnostics"]["mode"] == "cot"
    prompt = fake.prompts()[0]
    assert "1. All dogs are animals." in prompt and "Conclusion: Rex is an animal." in prompt
    assert fake.requests[0]["temperature"] == 0


async def test_cot_ambiguous_answer_has_no_label():
    reply = "It could go either way.\nAnswer: True or False"
    with fake_llm([reply]) as fake, serve(cot(fake)) as url:
        result = await send_task(url)
    assert result.state == "completed"
    [data] = result.data
    assert "label" not in data
    assert "names different labels (False, True)" in data["diagnostics"]["answer_line"]
    parsing = pytest.importorskip("green_agent.logic.answers")
    parsed = parsing.parse_answer(result.text, result.data)
    assert parsed.label is None and parsed.error


async def test_cot_text_only_task():
    with fake_llm(["Answer: Uncertain"]) as fake, serve(cot(fake)) as url:
        result = await send_task(url, structured=False)
    assert result.state == "completed" and result.data[0]["label"] == "Uncertain"
    assert "Answer with exactly one of" in fake.prompts()[0]


async def test_llm_500_then_200_is_retried():
    with fake_llm([{"status": 500}, "Answer: False"]) as fake, serve(cot(fake)) as url:
        result = await send_task(url)
    assert result.state == "completed" and result.data[0]["label"] == "False"
    assert len(fake.requests) == 2
    assert result.data[0]["diagnostics"]["llm_attempts"] == 2


async def test_llm_that_hangs_fails_the_task_with_a_clear_reason():
    with fake_llm([{"hang": 2}]) as fake, serve(cot(fake, request_timeout_s=0.5)) as url:
        result = await send_task(url)
    assert result.state == "failed"
    assert "timed out after 0.5 s" in result.text
    assert result.data[0]["diagnostics"]["llm_error"] == "timeout"
    assert "label" not in result.data[0]


async def test_llm_client_error_is_not_retried():
    with fake_llm([{"status": 400}], default="Answer: True") as fake, serve(cot(fake)) as url:
        result = await send_task(url)
    assert result.state == "failed" and "HTTP 400" in result.text
    assert len(fake.requests) == 1


# ---- auto-formalization, z3py ----------------------------------------------------------------------


async def test_z3py_right_first_time():
    with fake_llm([GOOD_PROGRAM]) as fake, serve(autoformalizer(fake)) as url:
        result = await send_task(url)
    assert result.state == "completed"
    data = result.data[0]
    assert data["label"] == "True" and "fallback" not in data
    diag = data["diagnostics"]
    assert diag["mode"] == "z3py" and diag["attempts"] == 1 and diag["verdict"] == "True"
    assert "premises = [ForAll" in diag["final_program"]
    (entry,) = diag["errors"]
    isolation, usage = entry.pop("isolation"), entry.pop("usage")
    assert entry == {"attempt": 1, "stage": "decided", "verdict": "True", "sandbox_status": "ok"}
    assert isolation[0] in ("namespaces", "fallback") and "rlimits" in isolation  # as the sandbox said
    assert usage["prompt_tokens"] == 11 and usage["completion_tokens"] == 7  # this attempt's own call
    assert diag["time_ms"]["sandbox"] > 0 and diag["time_ms"]["solver"] > 0
    assert result.text.rstrip().endswith("Answer: True")
    assert "must NOT" not in fake.prompts()[0]  # the rules live in the system prompt
    assert "Do NOT create a Solver" in fake.requests[0]["messages"][0]["content"]


async def test_z3py_failure_then_repair_feeds_back_the_exact_error():
    broken = GOOD_PROGRAM.replace("conclusion = Animal(rex)", "conclusion = Animal(rex) + 1/0")
    with fake_llm([broken, GOOD_PROGRAM]) as fake, serve(autoformalizer(fake)) as url:
        result = await send_task(url)
    assert result.state == "completed"
    data = result.data[0]
    assert data["label"] == "True"
    assert data["usage"]["calls"] == 2 and data["usage"]["prompt_tokens"] == 22
    first, second = data["diagnostics"]["errors"]
    assert first["stage"] == "sandbox" and "ZeroDivisionError: division by zero" in first["error"]
    assert second["stage"] == "decided"
    repair_prompt = fake.prompts()[1]
    assert first["error"] in repair_prompt
    assert "line 9" in repair_prompt  # the traceback points into the program
    # the conversation keeps the failed program as the assistant's turn
    assert fake.requests[1]["messages"][-2] == {"role": "assistant", "content": broken}


async def test_z3py_syntax_error_and_missing_conclusion_are_reported():
    syntax = "```python\nfrom z3 import *\npremises = [\n```"
    missing = GOOD_PROGRAM.replace("conclusion = Animal(rex)", "")
    with fake_llm([syntax, missing, GOOD_PROGRAM]) as fake, serve(autoformalizer(fake)) as url:
        result = await send_task(url)
    assert result.state == "completed"
    e1, e2, _ = result.data[0]["diagnostics"]["errors"]
    assert e1["stage"] == "syntax" and "SyntaxError at line 2" in e1["error"]
    assert e2["stage"] == "program" and "does not define `conclusion`" in e2["error"]
    assert e1["error"] in fake.prompts()[1] and e2["error"] in fake.prompts()[2]


async def test_z3py_three_failures_fail_the_task_with_diagnostics():
    bad = "```python\nimport os\n```"
    with fake_llm([bad, bad, bad]) as fake, serve(autoformalizer(fake, max_repairs=2)) as url:
        result = await send_task(url)
    assert result.state == "failed"
    assert "no usable formalization after 3 attempt(s)" in result.text
    data = result.data[0]
    assert "label" not in data
    errors = data["diagnostics"]["errors"]
    assert len(errors) == 3 and all("import of 'os' is not allowed" in e["error"] for e in errors)
    assert data["diagnostics"]["final_program"] == "import os"
    assert len(fake.requests) == 3


async def test_z3py_fallback_label_answers_uncertain_marked_fallback():
    bad = "no code at all"
    with fake_llm([bad] * 4) as fake, serve(autoformalizer(fake, fallback_label="Uncertain")) as url:
        result = await send_task(url)
    assert result.state == "completed"
    data = result.data[0]
    assert data["label"] == "Uncertain" and data["fallback"] is True
    assert data["diagnostics"]["attempts"] == 4
    assert "no ```python fenced block" in data["diagnostics"]["errors"][0]["error"]


async def test_z3py_inconsistent_premises_are_sent_back_for_repair():
    inconsistent = GOOD_PROGRAM.replace("Dog(rex)]", "Dog(rex), Not(Dog(rex))]")
    with fake_llm([inconsistent, GOOD_PROGRAM]) as fake, serve(autoformalizer(fake)) as url:
        result = await send_task(url)
    first = result.data[0]["diagnostics"]["errors"][0]
    assert first["verdict"] == "Inconsistent" and "inconsistent" in first["error"]
    assert "premise 2, premise 3" in fake.prompts()[1]
    assert result.data[0]["label"] == "True"


async def test_z3py_hung_llm_fails_with_diagnostics():
    with fake_llm([{"hang": 2}]) as fake, serve(autoformalizer(fake, request_timeout_s=0.5)) as url:
        result = await send_task(url)
    assert result.state == "failed" and "timed out" in result.text
    assert result.data[0]["diagnostics"]["errors"][0]["stage"] == "llm"


# ---- auto-formalization, fol -----------------------------------------------------------------------


async def test_fol_parse_error_is_repaired_on_the_second_round():
    broken = GOOD_FOL.replace("P2: Dog(rex)", "P2: Dog(rex) ∧")
    with fake_llm([broken, GOOD_FOL]) as fake, serve(autoformalizer(fake, FolMode())) as url:
        result = await send_task(url)
    assert result.state == "completed"
    data = result.data[0]
    assert data["label"] == "True"
    diag = data["diagnostics"]
    assert diag["mode"] == "fol" and diag["attempts"] == 2
    assert diag["final_formulas"].startswith("P1: ∀x (Dog(x) → Animal(x))")
    first = diag["errors"][0]["error"]
    assert first.startswith("syntax error in P2: dangling_operator")
    assert "Dog(rex) ∧\n          ^" in fake.prompts()[1]


async def test_fol_wrong_number_of_premise_lines_is_reported():
    short = "```fol\nP1: Dog(rex)\nC: Animal(rex)\n```"
    with fake_llm([short, GOOD_FOL]) as fake, serve(autoformalizer(fake, FolMode())) as url:
        result = await send_task(url)
    assert result.data[0]["label"] == "True"
    assert "expected 2 premise lines" in fake.prompts()[1]
