"""serve() logs at the level asked, without a line per outbound request unless debugging.

Run in a child process: logging is process-wide, and pytest's must stay as it is.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.timing import scaled

CHILD = """
import logging, sys
from green_agent.kit.server import listener, serving
def report(*args, **kwargs):
    names = ("green_agent.folio", "httpx", "a2a.client.card_resolver")
    print(*(logging.getLogger(n).isEnabledFor(logging.INFO) for n in names))
    print(*(logging.getLogger(n).isEnabledFor(logging.WARNING) for n in names))
listener.StoppableServer.serve_until_stopped = report
serving.serve(object(), host="127.0.0.1", port=0, log_level=sys.argv[1])
"""


@pytest.mark.parametrize(
    ("level", "info", "warning"),
    [
        ("info", "True False False", "True True True"),  # our own INFO lines, not theirs
        ("debug", "True True True", "True True True"),
        ("error", "False False False", "False False False"),
    ],
)
def test_chatty_libraries_log_warnings_only_unless_debugging(level: str, info: str, warning: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, level], capture_output=True, text=True, check=True, timeout=scaled(60)
    )
    assert out.stdout.splitlines() == [info, warning]
