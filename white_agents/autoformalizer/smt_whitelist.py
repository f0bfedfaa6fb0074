"""A strict whitelist for the SMT-LIB that generated programs export (docs/sandbox.md, "SMT-LIB path").

The text comes out of the sandbox, so it is hostile: Z3's SMT-LIB front end has commands with side effects
(``set-option :trace_file_name``, ``include``, ``echo``, ``eval``, ``get-*``...). This module reads it
with a small tokenizer of its own — nothing is handed to Z3 or any interpreter here — and accepts only
declarations, definitions and ``assert``, in printable ASCII, with no newline, backslash or control
character inside a quoted symbol or string, no comments, bounded size and nesting.
"""

from __future__ import annotations

import re

MAX_SMT2_BYTES = 256 << 10
"""Largest export accepted (a FOLIO problem is a few KiB)."""
MAX_DEPTH = 200
"""Deepest parenthesis nesting accepted."""
COMMANDS = frozenset(
    {
        "assert",
        "declare-const",
        "declare-datatype",
        "declare-datatypes",
        "declare-fun",
        "declare-sort",
        "define-fun",
        "define-sort",
    }
)
"""The only top-level commands allowed."""

_TOKEN = re.compile(
    r"""
    (?P<space>[ \t\r\n]+)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<quoted>\|[\x20-\x5b\x5d-\x7b\x7d\x7e]*\|)   # printable ASCII except | and backslash
  | (?P<string>"(?:[\x20\x21\x23-\x7e]|"")*")      # printable ASCII, "" as the only escape
  | (?P<atom>[A-Za-z0-9~!@$%^&*_+=<>.?/:#-]+)
    """,
    re.VERBOSE,
)


class SmtRejected(ValueError):
    """The exported SMT-LIB is outside the whitelist; the message says where and why."""


def check_smt2(text: str) -> int:
    """Raise :class:`SmtRejected` unless ``text`` is whitelisted SMT-LIB; return the number of asserts."""
    size = len(text.encode("utf-8"))
    if size > MAX_SMT2_BYTES:
        raise SmtRejected(f"the exported formulas are too large ({size} bytes > {MAX_SMT2_BYTES})")
    depth, asserts, expect_command, pos = 0, 0, False, 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise SmtRejected(
                f"character {text[pos]!r} at offset {pos} is not allowed in the exported SMT-LIB"
            )
        kind, token = match.lastgroup, match.group()
        pos = match.end()
        if kind == "space":
            continue
        if expect_command:
            if kind != "atom" or token not in COMMANDS:
                raise SmtRejected(
                    f"SMT-LIB command {token[:40]!r} is not allowed (only {', '.join(sorted(COMMANDS))})"
                )
            asserts += token == "assert"
            expect_command = False
        if kind == "open":
            depth += 1
            expect_command = depth == 1
            if depth > MAX_DEPTH:
                raise SmtRejected(f"the exported formulas nest deeper than {MAX_DEPTH} parentheses")
        elif kind == "close":
            depth -= 1
            if depth < 0:
                raise SmtRejected(f"unbalanced ')' at offset {match.start()} in the exported SMT-LIB")
        elif depth == 0:
            raise SmtRejected(f"{token[:40]!r} outside any command in the exported SMT-LIB")
    if depth or expect_command:
        raise SmtRejected("the exported SMT-LIB ends inside a command")
    return asserts
