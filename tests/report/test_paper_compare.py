"""``make paper``'s last step: a results file of the paper scenario next to the paper's 73.89 % / 86.70 %."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from green_agent.core.scoring import summarize_items
from green_agent.folio.paper import comparison_lines, preflight
from tests.support.timing import scaled


def _items(correct: int, failed: int = 0, total: int = 203) -> list[dict[str, Any]]:
    items = []
    for i in range(total):
        ok = i >= failed
        right = ok and i < failed + correct
        items.append({"id": str(i), "gold": "True", "predicted": ("True" if right else "False") if ok else None,
                      "status": "ok" if ok else "runtime_error", "correct": right, "latency_ms": 10.0,
                      "attempts": 1, "error": None if ok else "no usable formalization",
                      "usage": {"prompt_tokens": 100, "completion_tokens": 10, "cost_usd": None}})  # fmt: skip
    return items


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "green_agent.paper", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(120), env=env)


def test_comparison_with_the_paper(tmp_path: Path) -> None:
    results = {
        "participants": {"cot": None, "autoformalizer": None},
        "results": [
            {"role": "cot", "llm": {"model": "gemini/gemini-2.5-flash"}, "items": _items(152)},
            {
                "role": "autoformalizer",
                "llm": {"model": "openai/qwen2.5-7b"},
                "items": _items(120, failed=40),
            },
        ],
    }
    path = tmp_path / "paper.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    out = _run(str(path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Comparison with the paper")
    cot = next(ln for ln in lines if ln.strip().startswith("cot "))
    assert "ours  74.88 % (152/203" in cot and "paper  73.89 % (150/203)" in cot and "+0.99 points" in cot
    assert "inside our interval" in cot
    af = next(ln for ln in lines if ln.strip().startswith("autoformalizer "))
    assert "ours  59.11 % (120/203" in af and "paper  86.70 % (176/203)" in af and "-27.59 points" in af
    assert "OUTSIDE our interval" in af
    notes = "\n".join(ln for ln in lines if "note:" in ln)
    assert "model openai/qwen2.5-7b (the paper used gemini/gemini-2.5-flash)" in notes
    assert "40 failures counted as wrong" in notes and "20,300 prompt + 2,030 completion tokens" in notes
    assert "model gemini" not in notes  # the paper's own model needs no note


def test_a_part_without_items_has_no_interval_to_compare() -> None:
    """0 of 0 has no interval (it was [0, 1], which 'contained' the paper's figure)."""
    lines = comparison_lines([{**summarize_items([]), "role": "cot"}])
    assert lines[1].split() == ["cot", "no", "items", "assessed", "paper", "73.89", "%"]
    assert "inside our interval" not in "\n".join(lines)


def test_bad_results_file_is_one_line_exit_2(tmp_path: Path) -> None:
    out = _run(str(tmp_path / "missing.json"))
    assert out.returncode == 2 and out.stderr.strip().count("\n") == 0 and "error:" in out.stderr


def test_preflight_needs_a_key_or_a_model() -> None:
    assert "GEMINI_API_KEY" in (preflight({}) or "")
    assert preflight({"GEMINI_API_KEY": "k"}) is None
    assert preflight({"LLM_MODEL": "openai/local", "LLM_API_BASE": "http://127.0.0.1:8080/v1"}) is None
    env = {k: v for k, v in os.environ.items() if k not in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "LLM_MODEL")}
    out = _run("--preflight", env=env)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "LLM_API_BASE" in out.stderr
