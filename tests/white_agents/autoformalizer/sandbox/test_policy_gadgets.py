"""The five gadget families of issue #27, as the red team wrote them, against the policy layer.

Each program reaches ``sys`` through something on the allowlist, tries to switch the audit hook off by
rewriting its module's globals (the escape that worked before: the hook read its tables and builtins
from there), then runs a shell. Twice: the static check must refuse it with a message naming the gadget;
and with the static check forced off (the hook still on) the program must really reach ``sys`` and
rewrite those globals — it prints ``switched`` — and the hook must still refuse the shell.

These test the policy layer only, a convenience for precise repair messages. Containment is the
kernel layer's job, tested with the policy off (tests/white_agents/autoformalizer/sandbox/test_attacks.py); nothing here relies on
the policy to contain anything (the shell command is ``true``).
"""

from __future__ import annotations

import dataclasses
import dis
import textwrap
import types
import typing
from collections.abc import Iterator

import pytest

from white_agents.autoformalizer.sandbox import hook as sandbox_hook
from white_agents.autoformalizer.sandbox import runner as sandbox
from white_agents.autoformalizer.sandbox.policy import DEFAULT_ALLOWED, check_code

SWITCH_OFF_AND_SHELL = """
hook_globals = S.meta_path[0].find_spec.__func__.__globals__
for table in (hook_globals, vars(S.modules.get("hook", S))):
    table["BLOCKED_PREFIXES"] = ()
    table["BLOCKED_EXACT"] = frozenset()
    table["PATH_EVENTS"] = frozenset()
    table["isinstance"] = lambda *args: True
    table["PermissionError"] = ArithmeticError
print("switched", "hook" in S.modules, flush=True)
S.modules["os"].system("true")
"""
"""What every gadget does once it holds ``sys`` as ``S``."""

FAMILIES = {
    # 1. globals of allow-listed modules
    "collections-globals": ("import collections\nS = collections._sys", 2, "private name '_sys' of module"),
    "re-globals": ("import re\nE = re.enum\nS = E.sys", 2, "re.enum is a module off the allowlist"),
    "typing-globals": ("import typing\nS = typing.sys", 2, "attribute 'sys' (a module)"),
    "typing-alias": (
        "import typing\nE = typing.stdlib_re.enum\nS = E.sys",
        2,
        "'enum' names a module off the allowlist",
    ),
    "dataclasses-globals": ("import dataclasses\nS = dataclasses.sys", 2, "attribute 'sys' (a module)"),
    # 2. typing.get_type_hints evaluates string annotations
    "get-type-hints": (
        'import collections, typing\ndef probe(x: "collections._sys"):\n    pass\n'
        'S = typing.get_type_hints(probe)["x"]',
        2,
        "string annotations are not allowed",
    ),
    # 3. dataclasses internals: _create_fn execs its body in dataclasses' globals
    "dataclasses-internals": (
        'import dataclasses\nS = dataclasses._create_fn("probe", [], ["return sys"])()',
        2,
        "private name '_create_fn' of module 'dataclasses'",
    ),
    # 4. operator.attrgetter on dunder names, as strings
    "operator-attrgetter": (
        'import collections, operator\nS = operator.attrgetter("__globals__")(collections.namedtuple)["_sys"]',
        2,
        "use of 'attrgetter' is not allowed",
    ),
    # 5. attributes read through a string-keyed namespace
    "vars": ('import collections\nS = vars(collections)["_sys"]', 2, "use of 'vars' is not allowed"),
}
EXTRA_ALLOWED = {"operator-attrgetter": {"operator"}}
NEEDS = {"dataclasses-internals": (dataclasses, "_create_fn"), "typing-alias": (typing, "stdlib_re")}
"""What a gadget needs of this Python (3.13 dropped both)."""


def program(family: str) -> str:
    return FAMILIES[family][0] + "\n" + SWITCH_OFF_AND_SHELL


@pytest.mark.parametrize("family", FAMILIES)
def test_the_static_check_names_the_gadget(family: str) -> None:
    """Checked by hand: with ``ProgramScope.violation`` returning None the collections, re, alias and
    dataclasses-internals cases pass; the string-annotation and string-gadget rules catch the
    get-type-hints and attrgetter cases (typing.sys, dataclasses.sys and vars were refused before)."""
    _, line, fragment = FAMILIES[family]
    violation = check_code(program(family), DEFAULT_ALLOWED | EXTRA_ALLOWED.get(family, set()))
    assert violation is not None and violation.line == line, violation
    assert fragment in violation.message


@pytest.fixture
def static_check_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox with its static check switched off: the audit hook is the policy left."""
    monkeypatch.setattr(sandbox, "check_code", lambda *args, **kwargs: None)


@pytest.mark.parametrize("family", FAMILIES)
def test_with_the_static_check_forced_off_the_hook_still_refuses_the_shell(
    family: str, static_check_off: None
) -> None:
    """Checked by hand: with the old hook (tables and builtins read from its module globals, module
    left in ``sys.modules``) every one of these ran its shell and ended ``ok``."""
    module, name = NEEDS.get(family, (dataclasses, "dataclass"))
    if not hasattr(module, name):
        pytest.skip(f"{module.__name__}.{name} is gone from this Python")
    allowed = frozenset(DEFAULT_ALLOWED | EXTRA_ALLOWED.get(family, set()))
    result = sandbox.run_sandboxed(program(family), allowed_imports=allowed, timeout_s=30)
    assert "switched False" in result.stdout, result  # it held sys and rewrote the hook's globals
    assert result.status == "forbidden" and "os.system" in result.detail, result


def test_format_fields_reading_special_attributes_are_refused() -> None:
    """``str.format`` reads attributes named in the string (it returns only text, so there is no
    run-time variant). Checked by hand: without the format-field rule the first case passes."""
    for code in ('"{0.__globals__}".format(print)', '"{x._sys}".format_map({})'):
        violation = check_code(code)
        assert violation is not None and "format" in violation.message, code
    assert check_code('print("{:.2f} {0} {name}".format(1.5, name="x"))') is None


def hook_functions(function: types.FunctionType) -> Iterator[types.FunctionType]:
    """``function`` and every function in its closure, recursively."""
    todo, seen = [function], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        for cell in current.__closure__ or ():
            if isinstance(cell.cell_contents, types.FunctionType):
                todo.append(cell.cell_contents)


def code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            yield from code_objects(constant)


def test_the_hook_reads_no_globals() -> None:
    """Rebinding the hook module's globals or the builtins cannot change what the hook does.

    Checked by hand: with the old hook (``BLOCKED_PREFIXES``, ``isinstance``, ``os.path`` read at call
    time) this lists them."""
    hook, refuse = sandbox_hook.make_hook("/tmp/run", ("/usr",), frozenset({"z3"}), lambda *a, **k: None)
    reads = sorted(
        {
            f"{code.co_name}: {instruction.argval}"
            for function in (*hook_functions(hook), *hook_functions(refuse))
            for code in code_objects(function.__code__)
            for instruction in dis.get_instructions(code)
            if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL")
        }
    )
    assert reads == []
    assert len(list(hook_functions(hook))) >= 4  # hook, refuse, in_cwd/readable, absolute: walked


def test_the_hook_state_cannot_be_rewired_by_a_program_holding_sys(static_check_off: None) -> None:
    """With ``sys`` and ``os`` on the allowlist: the program cannot import the hook's module again,
    rewires what it can reach (the finder's refusal function, its closure and globals) and still cannot
    write outside its directory. Checked by hand: with the finder sharing the hook's ``refuse`` and
    the hook reading globals, the write went through."""
    code = """
    import os, sys
    finder = sys.meta_path[0]
    refuse = finder._refuse
    try:
        import hook
    except (ImportError, PermissionError) as error:
        print("no module:", type(error).__name__)
    for cell in refuse.__closure__:
        cell.cell_contents = lambda *args, **kwargs: None
    refuse.__globals__.clear()
    sys.meta_path.remove(finder)
    print("rewired", flush=True)
    try:
        open("/tmp/af-policy-probe-must-not-exist", "w")
    except PermissionError as error:
        print("refused:", error)
    """
    result = sandbox.run_sandboxed(
        textwrap.dedent(code), allowed_imports=frozenset(DEFAULT_ALLOWED | {"os", "sys"}), timeout_s=30
    )
    assert "no module: PermissionError" in result.stdout and "rewired" in result.stdout, result
    assert "refused: sandbox: open('/tmp/af-policy-probe-must-not-exist'" in result.stdout, result
    assert result.status == "forbidden", result


def test_swapping_the_code_of_a_reachable_function_is_refused(static_check_off: None) -> None:
    """The finder is reachable through ``sys.meta_path``; giving its method new code would switch it
    off. Checked by hand: without the ``object.__setattr__`` rule the swap succeeds (status ok)."""
    code = """
    import sys
    find_spec = type(sys.meta_path[0]).find_spec
    find_spec.__code__ = (lambda self, name, path=None, target=None: None).__code__
    """
    result = sandbox.run_sandboxed(
        textwrap.dedent(code), allowed_imports=frozenset(DEFAULT_ALLOWED | {"sys"}), timeout_s=30
    )
    assert result.status == "forbidden" and "object.__setattr__" in result.detail, result
