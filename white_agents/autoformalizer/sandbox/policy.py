"""Static check of LLM-written Z3Py before it runs: imports on an allowlist, no dynamic-code builtins.

This is the first and cheapest layer of the sandbox (see docs/sandbox.md). It is deliberately pragmatic:
it rejects the known ways out (``import os``, ``eval``, ``__subclasses__``, frame walking, the globals of
allow-listed modules, evaluated string annotations, attributes named by strings) so that the self-repair
loop gets a precise message, while the real containment is done by the operating system. Passing this
check does not make code safe.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from green_agent.kit import process
from white_agents.autoformalizer.sandbox.policy_scope import ProgramScope, is_dunder, is_private

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
    CPython 3.11's parser is not safe for that: see green_agent/kit/process.py)."""
    tree: ast.Module = process.parse(code, filename)  # mode "exec": a Module
    return tree


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

STRING_GADGETS: frozenset[str] = frozenset(
    {
        "get_type_hints",
        "ForwardRef",
        "singledispatch",
        "singledispatchmethod",
        "attrgetter",
        "methodcaller",
        "format_map",
    }
)
"""Callables that turn strings into code or attribute reads past the check: ``typing.get_type_hints``
evaluates string annotations and ``ForwardRef``s (``functools.singledispatch``'s ``register`` calls it),
``operator.attrgetter('__globals__')`` reads any attribute, ``format_map`` reads attributes in fields."""

NATIVE_GADGETS: frozenset[str] = frozenset(
    {
        "from_file",
        "parse_smt2_file",
        "open_log",
        "append_log",
        "Z3_open_log",
        "Z3_append_log",
        "Z3_solver_from_file",
        "Z3_parse_smtlib2_file",
        "Z3_fixedpoint_from_file",
        "Z3_optimize_from_file",
        "from_address",
        "from_buffer",
        "from_buffer_copy",
        "in_dll",
    }
)
"""Z3 and ctypes calls that read or write files or memory in native code, where no audit event sees
them (``Solver.from_file``, ``open_log``; ctypes' ``from_address`` on a z3 pointer type)."""

_FILE_PARAMETER = re.compile(
    r"trace[_-]?file|drat\.file|proof[_-]?file|backup[_-]file|assignment[_-]file|smtlib2[_-]log", re.I
)
"""Z3 parameters that name a file Z3 writes (``set_param(trace_file_name=...)``, ``"sat.drat.file"``)."""

PARAMETER_SETTERS: frozenset[str] = frozenset({"set_param", "set_option", "set"})
"""Z3Py calls that set parameters (besides the ``Z3_*`` C API)."""

_FORMAT_FIELD_ATTRIBUTE = re.compile(r"\{[^{}!:]*\.\s*_")
"""A ``str.format`` field reading a private or special attribute: ``'{0.__globals__}'``."""


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
    allowed = allowed_imports | ALWAYS_ALLOWED
    program = ProgramScope.of(tree, allowed, LEAKED_MODULE_NAMES - allowed)
    found: list[Violation] = []
    for node in ast.walk(tree):
        message = _node_violation(node, program) or program.violation(node)
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


def _node_violation(node: ast.AST, program: ProgramScope) -> str | None:
    allowed, leaked = program.allowed, program.leaked
    if isinstance(node, ast.Import):
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] not in allowed or leaked.intersection(parts[1:]):
                return f"import of {alias.name!r} is not allowed (allowed: {', '.join(sorted(allowed))})"
            if any(p.startswith("_") for p in parts):
                return f"import of private module {alias.name!r} is not allowed"
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            return "relative imports are not allowed"
        parts = (node.module or "").split(".")
        if parts[0] not in allowed or leaked.intersection(parts[1:]):
            return f"import from {node.module!r} is not allowed (allowed: {', '.join(sorted(allowed))})"
        if any(p.startswith("_") for p in parts[1:]):
            return f"import from private module {node.module!r} is not allowed"
        for alias in node.names:
            if alias.name in leaked or alias.name in BANNED_NAMES or alias.name in _GADGETS:
                return f"import of {alias.name!r} from {node.module!r} is not allowed"
            if is_private(alias.name):
                return f"import of private name {alias.name!r} from {node.module!r} is not allowed"
    elif isinstance(node, ast.Name):
        if node.id in BANNED_NAMES:
            return f"use of {node.id!r} is not allowed"
        if node.id in _GADGETS:
            return _gadget_message(node.id)
        if node.id in leaked:
            return f"use of module {node.id!r} is not allowed"
        if is_dunder(node.id) and node.id not in SAFE_DUNDERS:
            return f"use of {node.id!r} is not allowed"
    elif isinstance(node, ast.Attribute):
        return _attribute_violation(node.attr, leaked)
    elif isinstance(node, ast.MatchClass):  # ``case object(os=O)`` reads attributes without an Attribute node
        for attr in node.kwd_attrs:
            message = _attribute_violation(attr, leaked)
            if message is None and is_private(attr):
                message = f"private attribute {attr!r} is not allowed in a class pattern"
            if message is not None:
                return message
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.AnnAssign, ast.arg)):
        return _string_annotation(node)
    elif (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _FORMAT_FIELD_ATTRIBUTE.search(node.value)
    ):
        return "format fields that read private or special attributes ('{0.__x__}') are not allowed"
    elif isinstance(node, ast.Call):
        return _file_parameter(node)
    return None


def _file_parameter(call: ast.Call) -> str | None:
    """A Z3 parameter naming a file, given to a call that sets parameters (``set_param``,
    ``set_option``, ``Solver.set``, ``ParamsRef.set``, ``Z3_*``): as a keyword, a string or a key of
    a ``**{...}`` dict. Other strings are data (a program may print SMT-LIB that mentions them)."""
    callee = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if callee not in PARAMETER_SETTERS and not callee.startswith("Z3_"):
        return None
    names = [k.arg for k in call.keywords if k.arg]
    for value in (*call.args, *(k.value for k in call.keywords if k.arg is None)):
        keys = value.keys if isinstance(value, ast.Dict) else [value]
        names += [k.value for k in keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    for name in names:
        if _FILE_PARAMETER.search(name):
            return f"Z3 parameter {name[:40]!r} is not allowed (Z3 writes that file in native code)"
    return None


def _string_annotation(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.AnnAssign | ast.arg) -> str | None:
    """``typing.get_type_hints`` evaluates string annotations as code, out of the check's sight."""
    annotation = (
        node.returns if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else node.annotation
    )
    parts = ast.walk(annotation) if annotation is not None else ()
    if any(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in parts):
        return (
            "string annotations are not allowed (typing evaluates them as code); "
            "for a forward reference use `from __future__ import annotations` and the bare name"
        )
    return None


_GADGETS = STRING_GADGETS | NATIVE_GADGETS


def _gadget_message(name: str) -> str:
    if name in NATIVE_GADGETS:
        return f"use of {name!r} is not allowed (it reads or writes files or memory in native code)"
    return f"use of {name!r} is not allowed (it evaluates strings or reads attributes named by strings)"


def _attribute_violation(attr: str, leaked: frozenset[str]) -> str | None:
    if is_dunder(attr) and attr not in SAFE_DUNDERS:
        return f"attribute {attr!r} is not allowed"
    if attr in FRAME_ATTRIBUTES:
        return f"attribute {attr!r} is not allowed"
    if attr in _GADGETS:
        return _gadget_message(attr)
    if attr in leaked:
        return f"attribute {attr!r} (a module) is not allowed"
    return None
