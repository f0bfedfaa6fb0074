"""The process-wide defaults every entry point of ours applies first: :func:`apply_process_defaults`.

Importing our packages changes nothing outside them; a process that wants these defaults (our
``python -m`` commands, console scripts, white agents and the test suite) calls
:func:`apply_process_defaults` once, before anything imports a2a-sdk. It does two things:

- **a2a-sdk's tracing off by default.** a2a-sdk wraps its client and server calls in OpenTelemetry
  spans whenever ``opentelemetry-api`` is importable (an a2a-sdk dependency brings it in). With no
  tracer configured those spans record nothing, yet they cost about 4% of the instructions of every
  call; so :data:`TRACING_SWITCH` defaults to ``false`` unless the environment already sets it
  (docs/hosting.md). a2a-sdk reads the switch once, when it is first imported.
- **One thread at a time in ``ast.parse``, on the Pythons that need it.** CPython issue 106905
  (gh-106905, "AST constructor recursion depth mismatch"): the recursion-depth check that gh-95185
  added to the AST converter in 3.11.0 kept its counter in state all threads share, so a parse that
  another thread interrupts (a garbage collection running Python code is enough) can fail with
  ``SystemError``. It was fixed in 3.11.8 (GH-113476) and 3.12.2 (GH-113472) by giving each parse
  its own counter; CPython's changelog adds that in 3.12 the race could not occur anyway (garbage
  collection no longer runs inside the converter). 3.10 never had the shared counter (gh-95185 was
  not backported to it) and 3.13 shipped with the fix. So the lock is installed on 3.11.0 to 3.11.7
  only (:func:`ast_lock_needed`; tests/kit/test_ast_guard.py reproduces the race).
  There, our processes parse in threads more than one might think: the autoformalizer's sandbox
  policy checks model-written code in worker threads, ``traceback`` parses a source line to place
  its ``^^^`` carets, and ``inspect.signature`` and ``ast.literal_eval`` (lark's grammar loader) parse
  too. A lock in one caller does not help when the other parse is in a library, so ``ast.parse``
  itself takes one process-wide re-entrant lock. A parse takes microseconds to milliseconds; the
  lock costs less.
"""

from __future__ import annotations

import ast
import os
import sys
import threading
from typing import Any

TRACING_SWITCH = "OTEL_INSTRUMENTATION_A2A_SDK_ENABLED"
"""a2a-sdk's OpenTelemetry switch; :func:`apply_process_defaults` defaults it to ``false``."""

RACY_AST_VERSIONS = ((3, 11, 0), (3, 11, 8))
"""``[first, fixed)``: the CPython releases whose ``ast.parse`` races across threads (gh-106905)."""

_LOCK = threading.RLock()
_unguarded = ast.parse


def ast_lock_needed(version: tuple[int, ...] | None = None) -> bool:
    """Whether CPython ``version`` (default: this interpreter's) has the gh-106905 race."""
    release = tuple(sys.version_info[:3]) if version is None else tuple(version[:3])
    first, fixed = RACY_AST_VERSIONS
    return first <= release < fixed


_NEEDED = ast_lock_needed()


def parse(source: Any, filename: Any = "<unknown>", mode: str = "exec", **kwargs: Any) -> Any:
    """``ast.parse``, under the process-wide lock on the Pythons that need it."""
    if not _NEEDED:
        return _unguarded(source, filename, mode, **kwargs)
    with _LOCK:
        return _unguarded(source, filename, mode, **kwargs)


def apply_process_defaults() -> None:
    """Apply this process's defaults (see the module docstring); idempotent. Call it first thing in an
    entry point, before a2a-sdk is imported."""
    os.environ.setdefault(TRACING_SWITCH, "false")
    if _NEEDED:
        ast.parse = parse  # and so ast.literal_eval, traceback, inspect
