"""Suite-wide policy, in hooks so that no test file has to opt in.

- **The process defaults of every entry point.** The test process applies
  :func:`green_agent.kit.process.apply_process_defaults` as our commands do, before any test module
  (and so a2a-sdk) is imported: a2a-sdk's tracing off unless asked for, the ``ast.parse`` lock on the
  Pythons that need it.
- **CI fails loudly.** Locally, tests that need Chromium, bubblewrap, the E prover, Amber, the old DuckDB,
  the shared FOLIO files or the ``duplicates`` command skip with a reason (shown by ``-rs``). On CI (``CI`` set,
  as ``.ci/run`` runs) those prerequisites are installed (``duplicates``, which the repo cannot install, must be
  on the CI machine), so such a skip would hide a broken install: it is reported as a failure.
- **Timeouts scale.** pytest-timeout's limit for each test (the ini default, or its ``timeout`` marker) is
  multiplied by ``TEST_TIME_FACTOR`` (tests/support/timing.py). A test marked ``slow`` (a whole scenario, a
  suite re-run) or one that uses a module-scoped fixture (a real assessment run once for the module, its
  set-up charged to whichever of its tests runs first) gets :data:`LONG_TIMEOUT_S` instead of the default.
- **Parallel runs start the long work first.** Under pytest-xdist (``-n N --dist loadscope``, as ``make test``
  runs: each module goes to one worker, so a module-scoped fixture is built once), modules holding tests marked
  ``slow`` or building a module-scoped fixture are handed out first, so the longest work starts early instead
  of trailing at the end of the run.
"""

from __future__ import annotations

import os

import pytest

from green_agent.kit.process import apply_process_defaults
from tests.support.timing import scaled, time_factor

CI_PREREQUISITES = (
    "chromium",
    "bubblewrap",
    "setpriv",
    "eprover",
    "E prover",
    "FOLIO data",
    "shared FOLIO data",
    "amber CLI",
    "DuckDB 1.1",
    "duckdb is a dev dependency",
    "duplicates",
)
"""Words of a skip reason that name something CI installs."""

LONG_TIMEOUT_S = 600.0
"""The limit for a slow test or one using a module-scoped fixture (whole assessments, a suite re-run)."""

_SHARED_SCOPES = ("module", "class", "package")


def pytest_configure(config: pytest.Config) -> None:
    apply_process_defaults()  # as an entry point would, before collection imports a2a-sdk
    try:
        time_factor()
    except ValueError as exc:  # one line, not an internal error with a traceback
        raise pytest.UsageError(str(exc)) from None


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


def _uses_shared_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses one of our fixtures that lives longer than a test (built once per module)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        d.scope in _SHARED_SCOPES and d.baseid  # baseid "" is a plugin's fixture, not ours
        for defs in info.name2fixturedefs.values()
        for d in defs
    )


def _timeout_s(item: pytest.Item, shared_fixture: bool) -> float | None:
    """The test's own limit, else the long limit, else the default; None when unlimited."""
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.args[0] if marker.args else marker.kwargs.get("timeout")
        return None if value is None else float(value)
    if shared_fixture or item.get_closest_marker("slow") is not None:
        return LONG_TIMEOUT_S
    default = item.config.getoption("timeout", None)
    if default is None:
        default = item.config.getini("timeout")
    return float(default) if default else None


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    long_modules: set[str] = set()
    for item in items:
        shared = _uses_shared_fixture(item)
        if shared or item.get_closest_marker("slow") is not None:
            long_modules.add(_module(item))
        limit = _timeout_s(item, shared)
        if limit:
            item.add_marker(pytest.mark.timeout(scaled(limit)), append=False)
    # Whole modules move (a module fixture is still built once); the sort is stable.
    items.sort(key=lambda it: _module(it) not in long_modules)
