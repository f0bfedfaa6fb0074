"""A closed standard output ends the printing, not the command.

``agentbeats run … | head -2`` closes the pipe after two lines; every later write then fails with
EPIPE (Python ignores SIGPIPE). Left alone that is a traceback, an exit status of 1 and no results
file. :func:`tolerate_closed_stdout` wraps ``sys.stdout`` so that the first EPIPE quietly points
file descriptor 1 at ``/dev/null``: what is left to print is dropped, and the files are still written.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, TextIO


class _PipeTolerantStdout:
    """``sys.stdout`` that drops output once its reader has gone."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_by_reader = False

    def write(self, text: str) -> int:
        if not self.closed_by_reader:
            try:
                self._stream.write(text)
            except (BrokenPipeError, ValueError):  # ValueError: the stream was closed under us
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        if not self.closed_by_reader:
            try:
                self._stream.flush()
            except (BrokenPipeError, ValueError):
                self._reader_gone()

    def _reader_gone(self) -> None:
        self.closed_by_reader = True
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # the interpreter's flush at exit finds no pipe
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def tolerate_closed_stdout() -> None:
    """Wrap ``sys.stdout`` (once) so that a closed pipe ends printing instead of raising."""
    if not isinstance(sys.stdout, _PipeTolerantStdout) and sys.stdout is not None:
        sys.stdout = _PipeTolerantStdout(sys.stdout)
