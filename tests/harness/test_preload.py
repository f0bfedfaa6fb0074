"""Background imports: done in their own thread, waited for before use, failures left to the step."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from green_agent.harness.preload import AGENT_CLIENT, HTML_REPORT, Preload


@pytest.fixture
def modules_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("preload_probe")]:
        del sys.modules[name]


def test_modules_are_imported_in_the_background_and_ready_waits_for_them(modules_dir: Path) -> None:
    (modules_dir / "preload_probe_gate.py").write_text("import threading\nGATE = threading.Event()\n")
    (modules_dir / "preload_probe_slow.py").write_text(
        "import threading\nfrom preload_probe_gate import GATE\n"
        "GATE.wait(10)\nIMPORTED_BY = threading.current_thread().name\n"
    )
    from preload_probe_gate import GATE

    preload = Preload(("preload_probe_slow",))
    assert not hasattr(sys.modules.get("preload_probe_slow"), "IMPORTED_BY")  # still importing, held
    GATE.set()
    preload.ready()
    assert sys.modules["preload_probe_slow"].IMPORTED_BY == "preload"


def test_a_failing_import_is_left_for_the_step_that_needs_it(modules_dir: Path) -> None:
    (modules_dir / "preload_probe_broken.py").write_text("raise RuntimeError('broken on purpose')\n")
    (modules_dir / "preload_probe_fine.py").write_text("VALUE = 42\n")
    preload = Preload(("preload_probe_broken", "preload_probe_fine"))
    preload.ready()
    assert sys.modules["preload_probe_fine"].VALUE == 42  # a failure does not stop the rest
    with pytest.raises(RuntimeError, match="broken on purpose"):
        __import__("preload_probe_broken")


@pytest.mark.parametrize("modules", [AGENT_CLIENT, HTML_REPORT])
def test_the_harness_preloads_modules_that_exist(modules: tuple[str, ...]) -> None:
    import importlib.util

    assert all(importlib.util.find_spec(name) is not None for name in modules)
