"""The console's pairwise comparisons: one short table, most significant first (not 15 lines for six)."""

from __future__ import annotations

import io
import re

from rich.console import Console

from green_agent.folio.artifact import summary_text
from green_agent.harness.display import PAIRS_SHOWN, print_results
from tests.support.synthetic import make_results

SIX = {f"agent{i}": (None, skill) for i, skill in enumerate((0.95, 0.5, 0.9, 0.55, 0.6, 0.92))}


def test_six_participants_print_a_bounded_table_most_significant_first() -> None:
    """(Checked by hand: printing the summary as it comes gives all 15 "vs" lines.)"""
    results = make_results(SIX, n=80, seed=4)
    parts, comparison = results["results"][:-1], results["results"][-1]
    pairs = comparison["pairs"]
    assert len(pairs) == 15
    summary = summary_text(parts, parts[0]["dataset"], comparison)
    assert summary.count(" vs ") == 15  # the artifact's text keeps the full list
    out = io.StringIO()
    print_results(Console(file=out, width=120), summary, results["results"])
    text = out.getvalue()
    rows = [ln for ln in text.splitlines() if re.match(r"^\s+agent\d vs agent\d: ", ln)]
    assert len(rows) == PAIRS_SHOWN
    expected = sorted(pairs, key=lambda p: p["mcnemar_p"])[:PAIRS_SHOWN]
    assert [r.split(":")[0].strip() for r in rows] == [f"{p['a']} vs {p['b']}" for p in expected]
    assert f"… {15 - PAIRS_SHOWN} more pair(s)" in text and "HTML report" in text
    assert "McNemar p" not in text  # none of the summary's per-pair lines is printed
    assert "(+ a data part with keys: kind, pairs)" not in text
    assert any(r.endswith(" *") for r in rows)  # a 0.95 vs 0.5 difference over 80 items is significant


def test_two_participants_print_their_one_pair() -> None:
    results = make_results({"a": (None, 0.9), "b": (None, 0.6)}, n=40, seed=1)
    out = io.StringIO()
    print_results(Console(file=out, width=120), "summary", results["results"])
    text = out.getvalue()
    assert text.count(" vs ") == 1 and "more pair" not in text
