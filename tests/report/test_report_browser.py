"""The HTML report renders offline in headless Chromium (skipped when Chromium is absent)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from green_agent.core.registry import declaration_named, declarations
from green_agent.report.html import write_html_report
from tests.support.timing import scaled

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Chromium (Debian: apt-get install -y chromium chromium-driver)"
)


def _run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'profile'}", *args,
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=scaled(90))


def _other_sections(assessor: str) -> set[str]:
    mine = {s.id for s in declaration_named(assessor).sections}
    return {s.id for d in declarations() if d.assessor != assessor for s in d.sections} - mine


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["folio", "anomaly"])
def test_renders_offline_with_the_declared_sections(
    tmp_path: Path, scenario: str, request: pytest.FixtureRequest
) -> None:
    results = request.getfixturevalue("variant_results" if scenario == "folio" else "anomaly_results")
    html = tmp_path / f"{scenario}.html"
    write_html_report(results, html)
    shot = tmp_path / f"{scenario}.png"
    proc = _run_chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2400", html.as_uri())
    assert shot.exists(), proc.stderr[-2000:]
    if os.environ.get("REPORT_SCREENSHOT_DIR"):  # to look at them: REPORT_SCREENSHOT_DIR=/some/dir pytest ...
        shutil.copy(shot, Path(os.environ["REPORT_SCREENSHOT_DIR"]) / shot.name)
    from matplotlib.image import imread

    pixels = imread(str(shot))
    assert pixels.shape[:2] == (2400, 1280)
    colours = {tuple(px) for px in pixels[::4, ::4, :3].reshape(-1, 3).round(3).tolist()}
    assert len(colours) > 50, "screenshot looks blank"

    dom = _run_chromium(tmp_path, "--dump-dom", html.as_uri()).stdout
    declared = declaration_named(scenario)
    assert f'<meta name="assessor" content="{scenario}">' in dom
    for section in ("summary", *(s.id for s in declared.sections)):
        assert f'<section id="{section}">' in dom, section
    for section in _other_sections(scenario):
        assert f'<section id="{section}">' not in dom, section
    for metric in declared.metrics:
        assert metric.label in dom
    assert "None" not in dom.replace("none (items in dataset order)", "")


@pytest.mark.slow
def test_the_pager_runs_under_the_csp(tmp_path: Path) -> None:
    """A long item table: Chromium runs the pager (allowed by its hash in the CSP; with a wrong hash
    the script is blocked and the no-script line stays), which shows the default filter's first page
    of the whole set; the DOM holds one page. benchmarks/bench_report_browser.py clicks through it."""
    import re

    from green_agent.report.paging import PAGE_ROWS, PAGED_ABOVE
    from tests.support.synthetic import make_results

    n = PAGED_ABOVE + 100
    results = make_results({"a": (None, 0.6), "b": (None, 0.9)}, n=n, seed=7)
    html = tmp_path / "long.html"
    write_html_report(results, html)
    dom = _run_chromium(tmp_path, "--virtual-time-budget=5000", "--dump-dom", html.as_uri()).stdout
    items = dom[dom.index('<section id="items">') :]
    label = re.search(r"disagreements between agents \((\d+)\)", items)
    assert label is not None
    disagree = int(label.group(1))
    assert f"rows 1–{min(PAGE_ROWS, disagree)} of {disagree} (filtered from {n})" in items
    assert "the pager needs JavaScript" not in items
    assert items.count("<tr class=") == min(PAGE_ROWS, disagree)
