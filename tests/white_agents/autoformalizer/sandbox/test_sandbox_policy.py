"""The static check on its own: cheap, precise messages for the self-repair loop."""

from __future__ import annotations

import pytest

from white_agents.autoformalizer.sandbox.policy import DEFAULT_ALLOWED, check_code


@pytest.mark.parametrize(
    ("code", "line", "fragment"),
    [
        ("import os", 1, "import of 'os'"),
        ("import z3\nfrom subprocess import run", 2, "'subprocess'"),
        ("from . import x", 1, "relative"),
        ("x = eval('1')", 1, "'eval'"),
        ("__import__('os')", 1, "'__import__'"),
        ("getattr(1, 'real')", 1, "'getattr'"),
        ("().__class__.__bases__[0].__subclasses__()", 1, "'__subclasses__'"),
        ("import z3\nz3.z3core", 2, "'z3core'"),
        ("from z3 import *\nos.system('x')", 2, "'os'"),
        ("from z3 import ctypes", 1, "'ctypes'"),
        ("import z3.z3core", 1, "'z3.z3core'"),
        ("def f():\n    pass\nf.__globals__", 3, "'__globals__'"),
        ("try:\n    1/0\nexcept Exception as e:\n    e.__traceback__.tb_frame.f_globals", 4, "attribute"),
        ("print(__builtins__)", 1, "'__builtins__'"),
        # class patterns read attributes without an Attribute node (the eight-line escape)
        ("import z3\nmatch z3.Solver:\n    case object(sys=S, os=O):\n        pass", 3, "'sys' (a module)"),
        (
            "import z3\nmatch z3.Solver:\n    case object(__init__=I, __globals__=G):\n        pass",
            3,
            "'__globals__'",
        ),
        # issue #27's gadget families, in the variants the static check now names
        (
            "import collections\nx = collections",
            2,
            "module 'collections' may only be used as collections.<name>",
        ),
        ("import collections\nclass A:\n    pass\nA.m(collections)", 4, "may only be used as"),
        ("import json\njson.codecs.lookup", 2, "json.codecs is a module off the allowlist"),
        ("from z3 import *\ncopy.deepcopy(1)", 2, "use of module 'copy' is not allowed"),
        ("import re._compiler", 1, "private module 're._compiler'"),
        ("from typing import _eval_type", 1, "private name '_eval_type'"),
        ("from typing import get_type_hints", 1, "'get_type_hints'"),
        ("import typing\nf = typing.ForwardRef('x')", 2, "'ForwardRef'"),
        ("import functools\n@functools.singledispatch\ndef f(x):\n    pass", 2, "'singledispatch'"),
        ("import typing\nx: typing.List['collections._sys'] = []", 2, "string annotations"),
        ("def f() -> 'evil':\n    pass", 1, "string annotations"),
        ("class A:\n    def m(self):\n        return self._evaluate(None, None, None)", 3, "'_evaluate'"),
        ("match 1:\n    case object(_x=X):\n        pass", 2, "private attribute '_x'"),
        # native code out of the audit hook's sight: files and memory
        ("import z3\ns = z3.Solver()\ns.from_file('/etc/passwd')", 3, "'from_file'"),
        ("from z3 import *\nopen_log('/tmp/x.pth')", 2, "'open_log'"),
        ("import z3\nz3.set_param(trace_file_name='/tmp/x')", 2, "'trace_file_name'"),
        ("import z3\nz3.set_param('sat.drat.file', '/tmp/x')", 2, "'sat.drat.file'"),
        ("import z3\nz3.Solver().set(**{'smtlib2_log': '/tmp/x'})", 2, "'smtlib2_log'"),
        ("import z3\nt = type(z3.Solver().solver)\nt.from_address(0)", 3, "'from_address'"),
    ],
)
def test_refused(code: str, line: int, fragment: str) -> None:
    violation = check_code(code)
    assert violation is not None
    assert violation.line == line
    assert fragment in violation.message


@pytest.mark.parametrize(
    "code",
    [
        "import z3\nfrom z3 import Solver, Int\nimport math, itertools, collections.abc",
        "from __future__ import annotations\nfrom dataclasses import dataclass",
        "class A:\n    def __init__(self):\n        super().__init__()\n",
        "if __name__ == '__main__':\n    print(__doc__)",
        "from z3 import *\ns = Solver()\nprint(s.check())",
        # ordinary code the new rules must leave alone
        "import collections.abc\nprint(isinstance({}, collections.abc.Mapping))",
        "from collections import namedtuple\nP = namedtuple('P', 'x y')",
        "class A:\n    def __init__(self):\n        self._memo = {}\na = A()\nprint(a._memo)",
        "d = {'a': 1}.copy()\nprint('{:.2f} {name}'.format(1.5, name='x'))",
        "import z3\nx: z3.ExprRef = z3.Int('x')\ndef f(y: int) -> z3.BoolRef:\n    return x > y",
        "import re\nm = re.compile('a+').match('aa')",
        "import z3\nz3.set_param('timeout', 1000)\nz3.set_option(max_args=10)",
        "print('(set-option :trace_file_name \"x\")')",  # data, not a parameter: the SMT-LIB path's job
    ],
)
def test_accepted(code: str) -> None:
    assert check_code(code) is None


def test_allowlist_is_a_parameter() -> None:
    assert check_code("import os") is not None
    assert check_code("import os\nos.getcwd()", DEFAULT_ALLOWED | {"os"}) is None


def test_syntax_error_propagates() -> None:
    with pytest.raises(SyntaxError):
        check_code("def f(:\n")
