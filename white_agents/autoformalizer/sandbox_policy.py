"""Static check of LLM-written Z3Py before it runs: imports on an allowlist, no dynamic-code builtins.

This is the first and cheapest layer of the sandbox (see docs/sandbox.md). It is deliberately pragmatic:
it rejects the obvious ways out (``import os``, ``eval``, ``__subclasses__``, frame walking) so that the
self-repair loop gets a precise message, while the real containment is done at run time by the audit hook
and the operating system. Passing this check does not make code safe.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from green_agent import ast_guard

DEFAULT_ALLOWED: frozenset[str] = frozenset(
    {
        "z3",
        "math",
        "itertools",
        "functools",
        "collections",
        "re",
        "typing",
        "dataclasses",
        "fractions",
        "decimal",
        "json",
    }
)
"""Top-level modules generated code may import by default."""


def _parse(code: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse`` one thread at a time (the sandbox is called from several threads at once, and
    CPython 3.11's parser is not safe for that: see green_agent/ast_guard.py)."""
    return ast_guard.parse(code, filename)  # type: ignore[no-any-return]


ALWAYS_ALLOWED: frozenset[str] = frozenset({"__future__"})
"""Compiler directives, allowed whatever the allowlist says."""

BANNED_NAMES: frozenset[str] = frozenset(
    {
        "__import__",
        "eval",
        "exec",
        "compile",
        "open",
        "globals",
        "locals",
        "vars",
        "getattr",
        "setattr",
        "delattr",
        "breakpoint",
        "input",
        "memoryview",
    }
)
"""Builtins that run or reach code and objects dynamically, past any static check."""

LEAKED_MODULE_NAMES: frozenset[str] = frozenset(
    {
        "os",
        "sys",
        "io",
        "ctypes",
        "z3core",
        "z3types",
        "subprocess",
        "socket",
        "shutil",
        "signal",
        "pathlib",
        "importlib",
        "builtins",
        "resource",
        "gc",
        "inspect",
        "threading",
    }
)
"""Module names that ``from z3 import *`` or ``z3.<name>`` expose (z3 itself imports os, sys, io, ctypes).

Forbidden as bare names and as attributes unless the module is on the allowlist.
"""

SAFE_DUNDERS: frozenset[str] = frozenset(
    {
        "__name__",
        "__doc__",
        "__file__",
        "__init__",
        "__post_init__",
        "__str__",
        "__repr__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__hash__",
        "__len__",
        "__iter__",
        "__next__",
        "__contains__",
        "__getitem__",
        "__enter__",
        "__exit__",
        "__call__",
        "__bool__",
    }
)
"""Dunder names that ordinary code uses (``super().__init__``, ``if __name__ == "__main__"``)."""

FRAME_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "tb_frame",
        "tb_next",
        "gi_frame",
        "gi_code",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "ag_code",
        "co_code",
    }
)
"""Attributes that walk frames and code objects (ways to reach the bootstrap's globals)."""


@dataclass(frozen=True)
class Violation:
    """One reason the code is refused before it runs."""

    line: int
    """1-based line in the submitted code."""
    col: int
    """0-based column in the submitted code."""
    message: str
    """What is not allowed, e.g. ``import of 'os' is not allowed``."""

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def check_code(
    code: str, allowed_imports: frozenset[str] = DEFAULT_ALLOWED, filename: str = "main.py"
) -> Violation | None:
    """Return the first policy violation in ``code`` (by position), or None.

    Raises SyntaxError (or ValueError for NUL bytes on Python < 3.12) when the code does not parse.
    """
    tree = _parse(code, filename)
    found: list[Violation] = []
    allowed = allowed_imports | ALWAYS_ALLOWED
    leaked = LEAKED_MODULE_NAMES - allowed
    for node in ast.walk(tree):
        message = _node_violation(node, allowed, leaked)
        if message is not None:
            found.append(Violation(getattr(node, "lineno", 0), getattr(node, "col_offset", 0), message))
    if not found:
        return None
    return min(found, key=lambda v: (v.line, v.col))


def imported_modules(code: str) -> frozenset[str]:
    """Dotted names the code imports (``import a.b`` → a.b; ``from a import b`` → a, a.b).

    The child pre-imports these before it drops privileges; ``from a import b`` may name a function rather
    than a submodule, so a caller must tolerate ImportError for the ``a.b`` guesses.
    """
    names: set[str] = set()
    for node in ast.walk(_parse(code)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return frozenset(names)


def _node_violation(node: ast.AST, allowed: frozenset[str], leaked: frozenset[str]) -> str | None:
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] not in allowed or leaked.intersection(parts[1:]):
                return f"import of {alias.name!r} is not allowed (allowed: {', '.join(sorted(allowed))})"
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            return "relative imports are not allowed"
        parts = (node.module or "").split(".")
        if parts[0] not in allowed or leaked.intersection(parts[1:]):
            return f"import from {node.module!r} is not allowed (allowed: {', '.join(sorted(allowed))})"
        for alias in node.names:
            if alias.name in leaked or alias.name in BANNED_NAMES:
                return f"import of {alias.name!r} from {node.module!r} is not allowed"
    elif isinstance(node, ast.Name):
        if node.id in BANNED_NAMES:
            return f"use of {node.id!r} is not allowed"
        if node.id in leaked:
            return f"use of module {node.id!r} is not allowed"
        if _is_dunder(node.id) and node.id not in SAFE_DUNDERS:
            return f"use of {node.id!r} is not allowed"
    elif isinstance(node, ast.Attribute):
        return _attribute_violation(node.attr, leaked)
    elif isinstance(node, ast.MatchClass):  # ``case object(os=O)`` reads attributes without an Attribute node
        return next(filter(None, (_attribute_violation(a, leaked) for a in node.kwd_attrs)), None)
    return None


def _attribute_violation(attr: str, leaked: frozenset[str]) -> str | None:
    if _is_dunder(attr) and attr not in SAFE_DUNDERS:
        return f"attribute {attr!r} is not allowed"
    if attr in FRAME_ATTRIBUTES:
        return f"attribute {attr!r} is not allowed"
    if attr in leaked:
        return f"attribute {attr!r} (a module) is not allowed"
    return None


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")
