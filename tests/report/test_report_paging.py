"""Long tables in the HTML report: the paged payload round-trips and cannot end its script element.

No browser here (benchmarks/bench_report_browser.py drives the pager in Chromium).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any

from green_agent.report.html import render_html
from green_agent.report.load import prepare_report
from green_agent.report.paging import PAGE_ROWS, PAGED_ABOVE
from tests.support.synthetic import make_results

HOSTILE = "</script><script>alert(1)</script><!-- &amp; \u2028\u2029 </SCRIPT >"
PAYLOAD = re.compile(r'<script type="application/json" id="rows-items-1">(.*?)</script>', re.S)


def _long(n: int = PAGED_ABOVE + 1) -> dict[str, Any]:
    results = make_results({"a": (None, 0.7), "b": (None, 0.9)}, n=n, seed=5)
    for part in results["results"][:2]:
        part["items"][-1] |= {"status": "parse_error", "predicted": None, "correct": False, "error": HOSTILE}
        part["items"][-1]["conclusion"] = HOSTILE
    return results


def test_hostile_text_cannot_leave_the_payload_and_round_trips() -> None:
    """With the payload's escaping switched off (``script_safe_json`` without ``translate``) the
    ``</script>`` in the error ends the element early: the payload stops parsing and a third script opens."""
    doc = render_html(prepare_report(_long()))
    assert doc.lower().count("<script") == 2  # the payload and the pager, nothing from the items
    payload = PAYLOAD.search(doc)
    assert payload is not None
    text = payload.group(1)
    assert "<" not in text and ">" not in text and "\u2028" not in text and "\u2029" not in text
    rows = json.loads(text)
    assert len(rows) == PAGED_ABOVE + 1
    last = rows[-1]
    assert last[1] == f"folio-{PAGED_ABOVE:04d}"
    problem, answer_a = last[2], last[4]
    assert problem[3][-1] == f"Conclusion: {HOSTILE}" and answer_a[2] == HOSTILE


def test_every_row_is_in_the_payload_and_the_first_page_in_the_table() -> None:
    n = PAGED_ABOVE + 37
    results = _long(n)
    doc = render_html(prepare_report(results))
    payload = PAYLOAD.search(doc)
    assert payload is not None
    rows = json.loads(payload.group(1))
    assert [r[1] for r in rows] == [it["id"] for it in results["results"][0]["items"]]
    section = doc[
        doc.index('<section id="items">') : doc.index("</section>", doc.index('<section id="items">'))
    ]
    assert section.count("<tr class=") == PAGE_ROWS
    assert f"the first {PAGE_ROWS} of {n:,} rows" in section
    disagree = sum("disagree" in r[0] for r in rows)
    assert f"disagreements between agents ({disagree})" in section


def test_the_csp_allows_exactly_the_pager_script() -> None:
    """The CSP names the hash of the inline pager (and nothing else may run); a page without a long
    table keeps the script-free CSP."""
    doc = render_html(prepare_report(_long()))
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', doc)
    assert csp is not None
    policy = csp.group(1).replace("&#39;", "'")
    scripts = re.findall(r"<script>(.*?)</script>", doc, re.S)
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert (
        policy.endswith(f"; script-src 'sha256-{digest}'")
        and "unsafe-inline'" not in policy.split("script-src")[1]
    )
    short = render_html(prepare_report(make_results({"a": (None, 0.7)}, n=PAGED_ABOVE, seed=5)))
    assert "<script" not in short and "script-src" not in short
