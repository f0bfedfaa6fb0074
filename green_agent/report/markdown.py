"""Markdown view of a report (for PR comments, leaderboards and READMEs)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from . import fmt
from .load import ReportData
from .robustness import NOTE, TITLE, robustness_table
from .rows import item_rows

_ESCAPE = str.maketrans({c: "\\" + c for c in "\\`*_|"} | {"<": "&lt;", ">": "&gt;", "\n": " ", "\r": " "})


def cell(value: Any) -> str:
    """Text safe inside a Markdown table cell (participant text may hold ``|``, HTML, newlines)."""
    return str(value).translate(_ESCAPE)


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return lines


def render_markdown(report: ReportData, *, max_disagreements: int = 50) -> str:
    """Summary, per-label, failures, comparison, disagreements and reproducibility sections."""
    ps = report.participants
    out = ["# Assessment report", "", "## Summary", ""]
    out += table(
        [
            "role",
            "AgentBeats id",
            "score",
            "95% CI",
            "correct/total",
            "coverage",
            "acc. answered",
            "timeout",
            "runtime error",
            "parse error",
            "p50",
            "p95",
            "cost/correct",
        ],
        [
            [
                p["role"],
                report.ids.get(p["role"]) or "–",
                f"{p.get('score', 0):.2f}",
                fmt.ci(p.get("accuracy_ci95")),
                f"{p.get('correct')}/{p.get('total')}",
                fmt.pct(p.get("coverage")),
                fmt.pct(p.get("accuracy_answered")),
                p.get("timeout"),
                p.get("runtime_error"),
                p.get("parse_error"),
                fmt.ms((p.get("latency_ms") or {}).get("p50")),
                fmt.ms((p.get("latency_ms") or {}).get("p95")),
                fmt.money((p.get("usage") or {}).get("cost_per_correct")),
            ]
            for p in ps
        ],
    )
    labels = list(dict.fromkeys(k for p in ps for k in p.get("per_label") or {}))
    out += ["", "## Accuracy per gold label", ""]
    out += table(
        ["label", *[p["role"] for p in ps]],
        [[lab, *[_label_cell((p.get("per_label") or {}).get(lab)) for p in ps]] for lab in labels],
    )
    header, rows = robustness_table(ps)
    if rows:
        out += ["", f"## {TITLE}", "", NOTE, "", *table(header, rows)]
    kinds = sorted({k for p in ps for k in p.get("failures_by_kind") or {}})
    if kinds:
        out += ["", "## Failures", ""]
        out += table(
            ["kind", *[p["role"] for p in ps]],
            [[k, *[(p.get("failures_by_kind") or {}).get(k, 0) for p in ps]] for k in kinds],
        )
    pairs = report.comparison.get("pairs") or []
    if pairs:
        out += ["", "## Paired comparison", ""]
        out += table(
            ["A", "B", "items", "only A", "only B", "diff (A−B)", "95% CI", "McNemar p"],
            [
                [
                    c["a"],
                    c["b"],
                    c["n"],
                    c["only_a"],
                    c["only_b"],
                    fmt.signed_pct(c.get("diff")),
                    fmt.ci(c.get("diff_ci95")),
                    fmt.pvalue(c.get("mcnemar_p")),
                ]
                for c in pairs
            ],
        )
        rows = [r for r in item_rows(report) if r["disagree"]]
        out += ["", f"## Disagreements ({len(rows)})", ""]
        out += table(
            ["id", "gold", *[p["role"] for p in ps]],
            [
                [r["id"], r["gold"], *[c["answer"] if c else "–" for c in r["cells"]]]
                for r in rows[:max_disagreements]
            ],
        )
        if len(rows) > max_disagreements:
            out += ["", f"… {len(rows) - max_disagreements} more in the HTML report."]
    if report.reproducibility:
        out += [
            "",
            "## Reproducibility",
            "",
            "```json",
            json.dumps(
                {k: v for k, v in report.reproducibility.items() if k != "kind"},
                indent=2,
                sort_keys=True,
                default=str,
            ).replace("```", "`\u200b``"),
            "```",
        ]
    return "\n".join(out) + "\n"


def _label_cell(s: dict[str, Any] | None) -> str:
    if not s:
        return "–"
    return (
        f"{s.get('correct')}/{s.get('total')} {fmt.pct(s.get('accuracy'))} {fmt.ci(s.get('accuracy_ci95'))}"
    )
