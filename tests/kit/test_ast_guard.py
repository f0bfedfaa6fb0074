"""ast.parse one thread at a time on the Pythons with CPython's gh-106905 race (3.11.0 to 3.11.7: see
green_agent/kit/process.py), for our own parses and for the libraries' (ast.literal_eval, traceback
carets); on every other Python, no patch and no lock. This test process applied the defaults as an
entry point does (tests/conftest.py)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable

import pytest

from green_agent.kit import process
from white_agents.autoformalizer.sandbox.policy import check_code

needs_the_lock = pytest.mark.skipif(
    not process.ast_lock_needed(), reason=f"Python {sys.version.split()[0]} has no gh-106905 race: no lock"
)


@pytest.mark.parametrize(
    ("version", "needed"),
    [
        ((3, 10, 13), False),  # the shared counter came with gh-95185 in 3.11.0, never in 3.10
        ((3, 11, 0), True),
        ((3, 11, 7), True),
        ((3, 11, 8), False),  # fixed (GH-113476)
        ((3, 11, 14), False),
        ((3, 12, 1), False),  # shared counter, but 3.12's collector never runs inside the converter
        ((3, 12, 2), False),
        ((3, 13, 0), False),
        ((3, 14, 0), False),
    ],
)
def test_the_lock_is_needed_only_where_cpython_races(version: tuple[int, int, int], needed: bool) -> None:
    assert process.ast_lock_needed(version) is needed


def test_the_defaults_install_the_lock_exactly_on_the_racy_versions() -> None:
    assert process.ast_lock_needed() is ((3, 11, 0) <= sys.version_info[:3] < (3, 11, 8))
    assert (ast.parse is process.parse) is process.ast_lock_needed()
    assert ast.literal_eval("[1, 'a']") == [1, "a"]  # the real parser underneath, either way


def _waits_for_the_lock(work: Callable[[], object]) -> None:
    """``work`` in a thread does not finish while this thread holds the guard, and does after."""
    done = threading.Event()

    def run() -> None:
        work()
        done.set()

    with process._LOCK:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        assert not done.wait(0.3), "the parse ran while another thread held the guard"
    assert done.wait(10)
    thread.join(10)


@needs_the_lock
def test_library_parses_wait_for_the_guard() -> None:
    _waits_for_the_lock(lambda: ast.literal_eval("{'a': 1}"))


@needs_the_lock
def test_traceback_carets_wait_for_the_guard() -> None:
    def format_an_error() -> None:
        try:
            {}["missing"]  # traceback parses this line to place its carets
        except KeyError as exc:
            traceback.format_exception(exc)

    _waits_for_the_lock(format_an_error)


@needs_the_lock
def test_the_sandbox_policy_parses_under_the_guard() -> None:
    _waits_for_the_lock(lambda: check_code("import z3\nx = z3.Int('x')\n"))


@needs_the_lock
def test_the_guard_is_reentrant() -> None:
    with process._LOCK:
        assert isinstance(ast.parse("x = 1"), ast.Module)  # same thread: no deadlock


@pytest.mark.skipif(process.ast_lock_needed(), reason="this Python needs the lock")
def test_without_the_race_parses_take_no_lock() -> None:
    """On a Python without the race, a parse in another thread runs while this one holds the lock."""
    done = threading.Event()

    def parse_both() -> None:
        check_code("x = 1\n")
        ast.parse("y = 2")
        done.set()

    with process._LOCK:
        thread = threading.Thread(target=parse_both)
        thread.start()
        assert done.wait(10)
    thread.join(10)


RACE = """
import ast, gc, json, sys, threading
from green_agent.kit.process import apply_process_defaults
apply_process_defaults()
sys.setswitchinterval(1e-6)
gc.set_threshold(10)
gc.callbacks.append(lambda phase, info: sum(range(50)))  # Python code in every collection
SOURCE = "\\n".join(f"def f{i}(a, b):\\n    return [(a + b) * {i} for _ in range(3)]" for i in range(50))
errors = []
def parse_often():
    for _ in range(200):
        try:
            ast.parse(SOURCE)
        except SystemError as exc:
            errors.append(str(exc))
            return
threads = [threading.Thread(target=parse_often) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(errors))
"""


def test_threads_parsing_while_the_collector_runs_python_never_fail() -> None:
    """gh-106905's own trigger, in a fresh interpreter with the defaults applied: four threads parse
    while every collection runs Python code and the GIL changes hands every microsecond. No parse
    fails, on every Python: the lock where the race exists, and no lock needed elsewhere. Checked by
    hand on 3.11.7: with the lock not installed, 3 of the 4 threads fail with ``SystemError: AST
    constructor recursion depth mismatch`` in every run (and none on 3.10.13, 3.12.1 or 3.13.0)."""
    proc = subprocess.run(
        [sys.executable, "-c", RACE], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(proc.stdout) == []
