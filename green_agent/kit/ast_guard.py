"""One thread at a time in ``ast.parse``: a guard against a CPython 3.11 race.

CPython 3.11 (the version our images run) keeps the AST converter's recursion depth in state that
all threads share, so a parse that another thread interrupts (a garbage collection running Python
code is enough) can fail with ``SystemError: AST constructor recursion depth mismatch`` (CPython
issue 106905). Our processes parse in threads more than one might think: the autoformalizer's
sandbox policy checks model-written code in worker threads, ``traceback`` parses a source line to
place its ``^^^`` carets, and ``inspect.signature`` and ``ast.literal_eval`` (lark's grammar loader)
parse too. A lock in one caller does not help when the other parse is in a library, so
:func:`install` (run when the ``green_agent`` package is imported) makes ``ast.parse`` itself take
one process-wide re-entrant lock. A parse takes microseconds to milliseconds; the lock costs less.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.RLock()
_unguarded = ast.parse


def parse(source: Any, filename: Any = "<unknown>", mode: str = "exec", **kwargs: Any) -> Any:
    """``ast.parse``, under the process-wide lock."""
    with _LOCK:
        return _unguarded(source, filename, mode, **kwargs)


def install() -> None:
    """Route every ``ast.parse`` (and so ``ast.literal_eval``, ``traceback``, ``inspect``) through
    :func:`parse`. Idempotent."""
    ast.parse = parse
