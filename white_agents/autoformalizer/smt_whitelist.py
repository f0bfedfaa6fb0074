"""A strict whitelist for the SMT-LIB that generated programs export (docs/sandbox.md, "SMT-LIB path").

The text comes out of the sandbox, so it is hostile: Z3's SMT-LIB front end has commands with side effects
(``set-option :trace_file_name``, ``include``, ``echo``, ``eval``, ``get-*``...). This module reads it
with a small tokenizer of its own — nothing is handed to Z3 or any interpreter here — and accepts only
declarations, definitions and ``assert``, in printable ASCII, with no newline, backslash or control
character inside a quoted symbol or string, no comments, bounded size and nesting, and bounded
numbers where a number is a size: bit-vector widths and other indices, literal lengths, exponents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from green_agent.kit.errors import InputError

MAX_SMT2_BYTES = 256 << 10
"""Largest export accepted (a FOLIO problem is a few KiB)."""
MAX_DEPTH = 200
"""Deepest parenthesis nesting accepted."""
MAX_INDEX = 1024
"""Largest index of an indexed identifier: ``(_ BitVec N)``, ``(_ extract i j)``, ``(_ repeat N)``,
``(_ zero_extend N)``, ``(_ bvV N)``... Bit-blasting a 10**8-bit vector is a memory bomb; FOLIO needs none."""
MAX_NUMERAL_DIGITS = 100
"""Most digits in a decimal numeral (also the value of ``bvV``)."""
MAX_BITVEC_LITERAL_BITS = MAX_INDEX
"""Widest ``#b...``/``#x...`` literal, in bits (its width is its length)."""
MAX_EXPONENT = 64
"""Largest literal operand of ``^`` (``(^ 2 1000000000)`` asks for a 10**8-digit number)."""
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


class SmtRejected(InputError, ValueError):
    """The exported SMT-LIB is outside the whitelist; the message says where and why."""


def check_smt2(text: str) -> int:
    """Raise :class:`SmtRejected` unless ``text`` is whitelisted SMT-LIB; return the number of asserts."""
    size = len(text.encode("utf-8"))
    if size > MAX_SMT2_BYTES:
        raise SmtRejected(f"the exported formulas are too large ({size} bytes > {MAX_SMT2_BYTES})")
    depth, asserts, expect_command, pos = 0, 0, False, 0
    lists: list[_List] = []  # the lists open at this point, innermost last
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
        if kind != "close" and lists:
            here = lists[-1]
            if here.count == 0 and kind != "open":
                here.head = token
            if kind == "atom":
                _check_number(token, here)
            here.count += 1
        if kind == "open":
            lists.append(_List())
            depth += 1
            expect_command = depth == 1
            if depth > MAX_DEPTH:
                raise SmtRejected(f"the exported formulas nest deeper than {MAX_DEPTH} parentheses")
        elif kind == "close":
            depth -= 1
            if lists:
                lists.pop()
            if depth < 0:
                raise SmtRejected(f"unbalanced ')' at offset {match.start()} in the exported SMT-LIB")
        elif depth == 0:
            raise SmtRejected(f"{token[:40]!r} outside any command in the exported SMT-LIB")
    if depth or expect_command:
        raise SmtRejected("the exported SMT-LIB ends inside a command")
    return asserts


@dataclass
class _List:
    """An open parenthesis: its first token (``(`` if that is a list) and how many items it has so far."""

    head: str = "("
    count: int = 0


def _check_number(token: str, where: _List) -> None:
    """Refuse a literal whose size is a resource bomb (``where``: the list it is an item of)."""
    head = where.head if where.count else ""
    if token[0].isdigit():
        digits = sum(c.isdigit() for c in token)
        if digits > MAX_NUMERAL_DIGITS:
            raise SmtRejected(f"a numeral has {digits} digits (at most {MAX_NUMERAL_DIGITS} allowed)")
        if head == "_" and token.isdigit() and int(token) > MAX_INDEX:
            raise SmtRejected(
                f"index {token} of an indexed identifier (a bit-vector width?) is over {MAX_INDEX}"
            )
        whole, _, fraction = token.partition(".")
        if (
            head == "^"
            and where.count == 2
            and whole.isdigit()
            and (int(whole), fraction.strip("0") != "") > (MAX_EXPONENT, False)
        ):
            raise SmtRejected(f"literal operand {token} of '^' is over {MAX_EXPONENT}")
    elif token.startswith(("#b", "#x")):
        bits = (len(token) - 2) * (1 if token[1] == "b" else 4)
        if bits > MAX_BITVEC_LITERAL_BITS:
            raise SmtRejected(f"a bit-vector literal of {bits} bits (at most {MAX_BITVEC_LITERAL_BITS})")
    elif head == "_" and token[:2] == "bv" and token[2:].isdigit() and len(token) - 2 > MAX_NUMERAL_DIGITS:
        raise SmtRejected(
            f"bit-vector value {token[:12]}... has {len(token) - 2} digits (at most {MAX_NUMERAL_DIGITS})"
        )
