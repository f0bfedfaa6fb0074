"""serve() tunes the collector for a long-running server before it starts uvicorn.

Run in a child process: the collector's settings are process-wide, and pytest's must stay as they are.
"""

from __future__ import annotations

import subprocess
import sys

from tests.support.timing import scaled

CHILD = """
import gc
from green_agent.kit.server import listener, serving
before = gc.get_threshold()
listener.StoppableServer.serve_until_stopped = lambda *args, **kwargs: print(gc.get_threshold()[0], gc.get_freeze_count() > 0, before[0])
serving.serve(object(), host="127.0.0.1", port=0, log_level="warning")
"""


def test_serve_freezes_the_start_up_heap_and_collects_the_young_generation_less_often():
    out = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, check=True, timeout=scaled(60)
    )
    threshold, frozen, default = out.stdout.split()
    assert int(default) < 10_000  # CPython's own default, so the change below is serve()'s doing
    assert (int(threshold), frozen) == (10_000, "True")
