"""Suite-wide policy: on CI, a test may not skip for want of a prerequisite CI is meant to provide.

Locally, tests that need Chromium, the E prover or the shared FOLIO files skip with a reason (shown by
``-rs``). On CI (``CI`` set, as ``.ci/run`` runs) those prerequisites are installed, so such a skip
would hide a broken install: it is reported as a failure instead.
"""

from __future__ import annotations

import os

import pytest

CI_PREREQUISITES = (
    "chromium",
    "eprover",
    "E prover",
    "FOLIO data",
    "shared FOLIO data",
    "amber CLI",
    "DuckDB 1.1",
)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    report = outcome.get_result()
    if not os.environ.get("CI") or not report.skipped:
        return
    reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(needle.lower() in reason.lower() for needle in CI_PREREQUISITES):
        report.outcome = "failed"
        report.longrepr = f"skipped on CI, where its prerequisite must be installed: {reason}"
