"""ast.parse one thread at a time (CPython 3.11 races: see green_agent/kit/ast_guard.py), for our own
parses and for the libraries' (ast.literal_eval, traceback carets)."""

from __future__ import annotations

import ast
import sys
import threading
import traceback
from collections.abc import Callable

import pytest

import green_agent  # noqa: F401 - importing the package installs the guard
from green_agent.kit import ast_guard
from white_agents.autoformalizer.sandbox.policy import check_code


def _waits_for_the_lock(work: Callable[[], object]) -> None:
    """``work`` in a thread does not finish while this thread holds the guard, and does after."""
    done = threading.Event()

    def run() -> None:
        work()
        done.set()

    with ast_guard._LOCK:
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        assert not done.wait(0.3), "the parse ran while another thread held the guard"
    assert done.wait(10)
    thread.join(10)


def test_the_package_routes_ast_parse_through_the_guard() -> None:
    assert ast.parse is ast_guard.parse
    assert ast.literal_eval("[1, 'a']") == [1, "a"]  # still the real parser underneath


def test_library_parses_wait_for_the_guard() -> None:
    _waits_for_the_lock(lambda: ast.literal_eval("{'a': 1}"))


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="Python 3.10's traceback places no carets, so it parses nothing"
)
def test_traceback_carets_wait_for_the_guard() -> None:
    def format_an_error() -> None:
        try:
            {}["missing"]  # traceback parses this line to place its carets
        except KeyError as exc:
            traceback.format_exception(exc)

    _waits_for_the_lock(format_an_error)


def test_the_sandbox_policy_parses_under_the_guard() -> None:
    _waits_for_the_lock(lambda: check_code("import z3\nx = z3.Int('x')\n"))


def test_the_guard_is_reentrant() -> None:
    with ast_guard._LOCK:
        assert isinstance(ast.parse("x = 1"), ast.Module)  # same thread: no deadlock
