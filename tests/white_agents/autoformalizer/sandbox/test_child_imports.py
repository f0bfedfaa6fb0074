"""The modules that run inside the sandboxed child (child.py, hook.py, landlock.py, seccomp.py) are loaded
by path under ``python -I -S`` before the user's code: they may use the standard library's core only.
Their types exist for mypy alone; loading them must not import ``typing`` (an allow-listed module the
program should get only by importing it under the policy) or anything of ours."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.paths import REPO
from tests.support.timing import scaled

SANDBOX = REPO / "white_agents" / "autoformalizer" / "sandbox"

_LOAD = """
import json, sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
__import__(sys.argv[2])
print(json.dumps(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize("module", ["child", "hook", "landlock", "seccomp"])
def test_in_child_modules_load_no_typing_and_nothing_of_ours(module: str) -> None:
    """Breaks if a module imports ``typing`` at run time (checked by hand: ``from typing import
    TYPE_CHECKING`` in hook.py in place of the constant lists ``typing`` here)."""
    out = subprocess.run(
        [sys.executable, "-I", "-S", "-c", _LOAD, str(SANDBOX), module],
        capture_output=True,
        text=True,
        check=True,
        timeout=scaled(60),
    )
    loaded = json.loads(out.stdout)
    assert module in loaded
    assert [m for m in loaded if m.split(".")[0] in {"typing", "white_agents", "green_agent"}] == []
