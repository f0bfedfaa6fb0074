"""What the static check needs to know about a whole program: which names are modules, which names it
binds, which node holds which (docs/sandbox.md, layer "static check").

The rules here close the ways out through allow-listed modules' own globals: a module may only be used
as ``module.name`` (never passed around, so ``A.method(collections)`` cannot smuggle it in as ``self``),
its private names (``collections._sys``, ``dataclasses._create_fn``) and the modules it imported
(``typing.types``, ``re.enum``) are refused, and so is every private name the allow-listed modules and
their classes use (``ForwardRef._evaluate`` reached through ``A.method(obj)`` as ``self._evaluate``).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import importlib.util
import sys
import types
from dataclasses import dataclass

STDLIB_MODULES: frozenset[str] = frozenset(getattr(sys, "stdlib_module_names", ()))
"""Names of standard-library modules: as an attribute, or a name the code never binds (``from z3
import *`` brings z3's own ``sys``, ``copy``...), they reach a module off the allowlist."""

METHOD_NAMES: frozenset[str] = frozenset({"copy"})
"""Module names that are also common method names (``d.copy()``): refused only on a module."""


@dataclass(frozen=True)
class ProgramScope:
    """What the rules need to know about the whole program: which names are modules, which it binds."""

    allowed: frozenset[str]
    leaked: frozenset[str]
    """Module names z3 re-exports, off the allowlist."""
    modules: dict[str, str]
    """Name bound by ``import`` → the module's dotted name (``import re as r`` → r: re)."""
    bound: frozenset[str]
    """Every name the program binds (assignments, definitions, parameters, imports...)."""
    parents: dict[int, ast.AST]
    """id(node) → its parent node."""

    @classmethod
    def of(cls, tree: ast.Module, allowed: frozenset[str], leaked: frozenset[str]) -> ProgramScope:
        modules: dict[str, str] = {}
        bound: set[str] = set()
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
            if isinstance(node, ast.Import):
                for alias in node.names:
                    name = alias.asname or alias.name.split(".")[0]
                    modules[name] = alias.name if alias.asname else name
            bound.update(bound_names(node))
        return cls(allowed, leaked, modules, frozenset(bound), parents)

    def module_of(self, node: ast.AST) -> str | None:
        """The dotted module name ``node`` evaluates to, when the program names a module there."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id)
        if isinstance(node, ast.Attribute):
            outer = self.module_of(node.value)
            if outer is not None and is_submodule(f"{outer}.{node.attr}"):
                return f"{outer}.{node.attr}"
        return None

    def violation(self, node: ast.AST) -> str | None:
        """The rules that need the whole program: module objects, private names, unbound modules."""
        modules = module_names(self.allowed) | self.leaked
        if isinstance(node, ast.Attribute):
            module = self.module_of(node.value)
            if module is not None:
                message = self._module_attribute(module, node.attr, modules)
                if message is not None:
                    return message
            elif is_private(node.attr) and node.attr in library_private_names(self.allowed):
                return (
                    f"private attribute {node.attr!r} is not allowed "
                    "(the allow-listed modules use that name; name your own attributes differently)"
                )
            elif node.attr in modules and node.attr not in METHOD_NAMES:
                return f"attribute {node.attr!r} names a module off the allowlist"
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load):
            module = self.module_of(node)
            parent = self.parents.get(id(node))
            if module is not None and not (isinstance(parent, ast.Attribute) and parent.value is node):
                shown = node.id if isinstance(node, ast.Name) else module
                return f"module {shown!r} may only be used as {shown}.<name>, not as a value"
        # a module name the code never binds comes from a star import, e.g. z3's own ``copy``
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in modules - self.bound:
            return f"use of module {node.id!r} is not allowed (the code never imports it)"
        return None

    def _module_attribute(self, module: str, attr: str, modules: frozenset[str]) -> str | None:
        if is_private(attr):
            return f"private name {attr!r} of module {module!r} is not allowed"
        if attr in modules and not is_submodule(f"{module}.{attr}"):
            return f"{module}.{attr} is a module off the allowlist"
        return None


@functools.lru_cache(maxsize=16)
def module_names(allowed: frozenset[str]) -> frozenset[str]:
    """Names under which a module off the allowlist can be reached: every standard-library module
    name, and every name the allow-listed modules (and the modules they import, three levels deep)
    bind to such a module — ``typing.sys``, ``re.enum``, ``enum.bltns``, ``z3.ctypes``... — minus the
    allowlist. Imports the allow-listed modules in this process (they are the operator's choice)."""
    found = set(STDLIB_MODULES)
    depth: dict[int, int] = {}
    todo = []
    for name in sorted(allowed):
        with contextlib.suppress(Exception):  # an allow-listed module that is not installed
            module = importlib.import_module(name)
            depth[id(module)] = 0
            todo.append(module)
    while todo:
        module = todo.pop()
        for attr, value in list(vars(module).items()):
            if not isinstance(value, types.ModuleType):
                continue
            if value.__name__.split(".")[0] not in allowed:
                found.add(attr)
            if id(value) not in depth and depth[id(module)] < 3:
                depth[id(value)] = depth[id(module)] + 1
                todo.append(value)
    return frozenset(found - allowed)


@functools.lru_cache(maxsize=16)
def library_private_names(allowed: frozenset[str]) -> frozenset[str]:
    """Every private (``_x``) name of the allow-listed modules, of the objects they hold and of those
    objects' classes: the program's own private attributes must not collide with them."""
    found: set[str] = set()
    for name in sorted(allowed):
        with contextlib.suppress(Exception):  # an allow-listed module that is not installed
            namespace = vars(importlib.import_module(name))
            found.update(namespace)
            for value in list(namespace.values()):
                kind = value if isinstance(value, type) else type(value)
                for holder in (value, *kind.__mro__):
                    with contextlib.suppress(Exception):
                        found.update(dir(holder))
    return frozenset(n for n in found if is_private(n))


def bound_names(node: ast.AST) -> set[str]:
    """Names ``node`` itself binds."""
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return {node.id}
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.arg):
        return {node.arg}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
    if isinstance(node, ast.ExceptHandler) and node.name:
        return {node.name}
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        return {node.name}
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return set(node.names)
    return set()


@functools.lru_cache(maxsize=256)
def is_submodule(dotted: str) -> bool:
    """Whether ``dotted`` names a real submodule (``collections.abc`` yes, ``dataclasses.abc`` no).

    Only called for an allow-listed top-level module, which it may import in this process.
    """
    parent, _, name = dotted.rpartition(".")
    if not parent or not name.islower():  # modules are lower case; this spares a search per z3.Name
        return False
    if dotted in sys.modules:
        return True
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, ValueError, AttributeError):
        return False


def is_private(name: str) -> bool:
    """``_x`` but not ``__x__``."""
    return name.startswith("_") and not is_dunder(name)


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")
