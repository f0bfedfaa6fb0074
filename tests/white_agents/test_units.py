"""Pieces of the white agents without servers: settings, task parsing, answer lines, formula blocks,
the trusted SMT-LIB decision, and the CLI's startup error."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from tests.support.timing import scaled
from white_agents.autoformalizer.checks import (
    SmtError,
    decide_smt2,
    extract_block,
    harness_result,
    harness_source,
    python_syntax_error,
)
from white_agents.autoformalizer.fol_mode import FormulaBlockError, parse_formula_block
from white_agents.common.llm import ConfigError, LLMSettings, Usage, add_llm_args, settings_from_args
from white_agents.common.task import TaskFormatError, final_answer_label, parse_task


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_llm_args(parser)
    return parser.parse_args(list(argv))


def test_model_precedence_flag_then_env_then_default():
    env = {"LLM_MODEL": "openai/from-env", "LLM_API_BASE": "http://x/v1"}
    assert settings_from_args(_args("--model", "openai/flag"), env).model == "openai/flag"
    assert (
        settings_from_args(_args("--model-default", "gemini/gemini-2.5-flash"), env).model
        == "openai/from-env"
    )
    s = settings_from_args(_args("--model-default", "gemini/gemini-2.5-flash"), {})
    assert s.model == "gemini/gemini-2.5-flash" and s.api_base is None and s.temperature == 0
    assert settings_from_args(_args(), env).api_base == "http://x/v1"
    with pytest.raises(ConfigError, match="no LLM model configured"):
        settings_from_args(_args(), {})


def test_record_and_replay_flags(tmp_path):
    """A replay needs a readable record and no key; recording and replaying exclude each other."""
    from white_agents.common.server import missing_credentials

    env = {"LLM_RECORD_DIR": str(tmp_path / "rec")}
    assert settings_from_args(_args("--model", "openai/x"), env).record_dir == str(tmp_path / "rec")
    with pytest.raises(ConfigError, match="cannot read the record"):
        settings_from_args(_args("--model", "openai/x", "--replay", str(tmp_path / "none")), {})
    (tmp_path / "r").mkdir()
    for name in ("prompts.jsonl", "calls.jsonl"):
        (tmp_path / "r" / name).write_text("")
    replay = settings_from_args(_args("--model", "gemini/g", "--replay", str(tmp_path / "r")), {})
    assert replay.replay_dir == str(tmp_path / "r") and missing_credentials(replay, {}) is None
    with pytest.raises(ConfigError, match="exclude each other"):
        settings_from_args(_args("--model", "openai/x", "--replay", str(tmp_path / "r")), env)


def test_usage_sums_and_unknown_cost_stays_unknown():
    a = Usage(10, 5, 0.01, 1)
    assert (Usage() + a) == a
    assert (a + a).as_dict() == {"prompt_tokens": 20, "completion_tokens": 10, "cost_usd": 0.02, "calls": 2}
    assert (a + Usage(1, 1, None, 1)).cost_usd is None


def test_importing_common_does_not_import_litellm():
    code = "import sys, white_agents.common, white_agents.common.server; print('litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("module", ["white_agents.cot", "white_agents.autoformalizer"])
def test_missing_model_exits_2_with_one_line(module):
    env = {k: v for k, v in os.environ.items() if k not in ("LLM_MODEL",)}
    out = subprocess.run(
        [sys.executable, "-m", module, "--port", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=scaled(60),
    )
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "no LLM model configured: pass --model or set LLM_MODEL" in out.stderr


def test_missing_provider_key_exits_2_with_one_line():
    env = {k: v for k, v in os.environ.items() if k not in ("LLM_MODEL", "LLM_API_KEY", "LLM_API_BASE")}
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        env.pop(key, None)
    cmd = [sys.executable, "-m", "white_agents.cot", "--port", "1", "--model", "gemini/gemini-2.5-flash"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=scaled(120))
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().count("\n") == 0
    assert (
        "no key configured for gemini (gemini/gemini-2.5-flash)" in out.stderr
        and "GEMINI_API_KEY" in out.stderr
    )


def test_credentials_check_trusts_local_api_base_and_unknown_providers():
    from white_agents.common.server import missing_credentials

    base = LLMSettings(model="openai/test", api_base="http://127.0.0.1:1/v1")
    assert missing_credentials(base, {}) is None
    remote = LLMSettings(model="openai/test", api_base="http://10.1.2.3/v1")
    assert "no key configured for openai" in (missing_credentials(remote, {}) or "")
    assert missing_credentials(remote, {"LLM_API_KEY": "k"}) is None
    assert missing_credentials(LLMSettings(model="ollama/llama3"), {}) is None
    assert missing_credentials(LLMSettings(model="openai/x", api_key="k"), {}) is None
    gemini = LLMSettings(model="gemini/gemini-2.5-flash")
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in (missing_credentials(gemini, {}) or "")
    assert missing_credentials(gemini, {"GOOGLE_API_KEY": "k"}) is None  # either of litellm's names


def test_parse_task_data_part_and_text_only():
    task = parse_task("text", [{"task": "folio", "id": 7.0, "premises": ["a", "b"], "conclusion": "c"}])
    assert task.id == "7" and task.premises == ("a", "b") and task.structured
    assert "1. a\n2. b" in task.problem_text()
    assert not parse_task("just text", []).structured
    with pytest.raises(TaskFormatError):
        parse_task("", [])
    with pytest.raises(TaskFormatError, match="premises"):
        parse_task("x", [{"task": "folio", "premises": "a", "conclusion": "c"}])


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("reasoning\nAnswer: True", "True"),
        ("Answer: False\nwait, no.\nAnswer: **Uncertain**", "Uncertain"),
        ("Final answer: unknown.", "Uncertain"),
        ("Answer: \\boxed{False}", "False"),
        ("Answer: True or False", None),
        ("The answer is true.", None),
        ("Answer: maybe", None),
    ],
)
def test_final_answer_label(text, label):
    assert final_answer_label(text)[0] == label


def test_extract_block_prefers_tagged_and_last():
    text = "```python\nfirst\n```\nthen\n```python\nsecond\n```"
    assert extract_block(text, ("python",)) == "second"
    assert extract_block("```\nplain\n```", ("python",)) == "plain"
    assert extract_block("no block", ("python",)) is None


def test_python_syntax_error_has_line_and_caret():
    msg = python_syntax_error("x = 1\ny = (\n")
    assert msg is not None and msg.startswith("SyntaxError at line 2")
    assert python_syntax_error("x = 1\n") is None


def test_formula_block_format():
    assert parse_formula_block("P1: A(a)\nP2: B(a)\nC: A(a)", 2) == (["A(a)", "B(a)"], "A(a)")
    for bad, msg in [
        ("P1: A(a)", "no `C:` line"),
        ("P1: A(a)\nP3: B(a)\nC: A(a)", "without gaps"),
        ("P1: A(a)\nC: A(a)", "expected 2 premise lines"),
        ("P1: A(a)\nfoo\nC: x", "line 2 does not start"),
    ]:
        with pytest.raises(FormulaBlockError, match=msg):
            parse_formula_block(bad, 2)


SMT = """(declare-sort Obj 0)
(declare-fun P (Obj) Bool)
(declare-fun Q (Obj) Bool)
(declare-fun a () Obj)
(assert (forall ((x Obj)) (=> (P x) (Q x))))
(assert (P a))
(assert {conclusion})
"""


@pytest.mark.parametrize(
    ("conclusion", "verdict"),
    [
        ("(Q a)", "True"),
        ("(not (Q a))", "False"),
        ("(P (as a Obj))", "True"),
        ("(forall ((y Obj)) (Q y))", "Uncertain"),
    ],
)
def test_decide_smt2_verdicts(conclusion, verdict):
    assert decide_smt2(SMT.format(conclusion=conclusion), 2).decision.verdict.value == verdict


def test_decide_smt2_inconsistent_and_errors():
    smt = "(declare-const p Bool)\n(assert p)\n(assert (not p))\n(assert p)\n"
    run = decide_smt2(smt, 2)
    assert run.decision.verdict.value == "Inconsistent" and run.decision.used_premises == (0, 1)
    with pytest.raises(SmtError, match="expected 3 formulas"):
        decide_smt2("(declare-const p Bool)\n(assert p)\n", 2)
    with pytest.raises(SmtError, match="could not be parsed"):
        decide_smt2("(assert (undefined x))", 0)


def test_harness_exports_smt_outside_any_sandbox():
    program = "import z3\np = z3.Bool('p')\npremises = [p, True]\nconclusion = z3.Not(p)\n"
    out = subprocess.run(
        [sys.executable, "-I", "-c", harness_source(program)], capture_output=True, text=True
    )
    result = harness_result(out.stdout)
    assert result is not None and result["ok"] and result["n_premises"] == 2
    assert decide_smt2(result["smt2"], 2).decision.verdict.value == "False"
    out = subprocess.run(
        [sys.executable, "-I", "-c", harness_source("premises = 3\nconclusion = 'x'\n")],
        capture_output=True,
        text=True,
    )
    assert harness_result(out.stdout) == {
        "error": "type",
        "detail": "`premises` is int, not a list of z3 Boolean expressions",
    }
