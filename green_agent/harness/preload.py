"""Import what a later step needs while the harness is only waiting.

The harness spends its first seconds waiting: for the agents to serve their cards, then for the
assessment to finish. The A2A client (about 0.5 s of imports) and the HTML report with matplotlib
(about 0.8 s) are needed only after those waits, so they are imported in a background thread
during them. :meth:`Preload.ready` joins that thread before the step that needs the modules, so
the main thread never imports them at the same time (no import-lock contention), and an import
that fails in the background is simply retried, and reported, by the step itself.
"""

from __future__ import annotations

import contextlib
import importlib
import threading

AGENT_CLIENT = ("green_agent.harness.client", "green_agent.harness.display")
"""What the assessment step imports: the streaming A2A client and the progress view."""
HTML_REPORT = ("green_agent.report.html", "matplotlib.figure", "matplotlib.backends.backend_svg")
"""What writing ``results.html`` imports: the report and matplotlib's SVG output."""


class Preload:
    """Modules imported in a daemon thread, started at once."""

    def __init__(self, modules: tuple[str, ...]) -> None:
        self.modules = modules
        self._thread = threading.Thread(target=self._run, name="preload", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for name in self.modules:
            with contextlib.suppress(Exception):  # the step that needs it imports it again, and says why
                importlib.import_module(name)

    def ready(self, timeout_s: float = 30.0) -> None:
        """Wait for the background imports (bounded: a hung import must not hang the harness)."""
        self._thread.join(timeout_s)
