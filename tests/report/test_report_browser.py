"""The HTML report renders offline in headless Chromium (skipped when Chromium is absent)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from green_agent.report.html import write_html_report

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
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90)


@pytest.mark.slow
def test_renders_offline(tmp_path: Path, results: dict[str, Any]) -> None:
    html = tmp_path / "report.html"
    write_html_report(results, html)
    shot = tmp_path / "shot.png"
    proc = _run_chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", html.as_uri())
    assert shot.exists(), proc.stderr[-2000:]
    from matplotlib.image import imread

    pixels = imread(str(shot))
    assert pixels.shape[:2] == (2000, 1280)
    colours = {tuple(px) for px in pixels[::4, ::4, :3].reshape(-1, 3).round(3).tolist()}
    assert len(colours) > 50, "screenshot looks blank"

    dom = _run_chromium(tmp_path, "--dump-dom", html.as_uri()).stdout
    for section in ("summary", "per-label", "confusion", "failures", "latency", "comparison", "items"):
        assert f'id="{section}"' in dom
    assert "Paired comparison" in dom and "disagreements between agents" in dom
