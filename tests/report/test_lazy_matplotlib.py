"""matplotlib (0.75 s of a cold run) is imported only when a report is drawn."""

from __future__ import annotations

import subprocess
import sys

from tests.support.timing import scaled


def test_importing_the_report_writer_does_not_import_matplotlib():
    code = (
        "import sys, green_agent.report.html, green_agent.harness.cli, green_agent.service.server; "
        "print('matplotlib' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=scaled(120), check=True
    )
    assert proc.stdout.strip() == "False"
