"""Prompts of the auto-formalization agent: Z3Py programs (the paper's method) and FOLIO-style FOL lines."""

from __future__ import annotations

from white_agents.common.runtime import prompt_version
from white_agents.common.task import FolioTask

Z3PY_SYSTEM = """\
You translate natural-language logical reasoning problems into Z3Py (the z3 Python API).
Write a Python program that only DECLARES symbols and BUILDS formulas:
- Start with `from z3 import *`.
- Use one uninterpreted sort for individuals, e.g. `Obj = DeclareSort("Obj")`; predicates are
  `Function("Name", Obj, ..., BoolSort())`; named individuals are `Const("name", Obj)`; bound variables
  are `Const("x", Obj)` used inside `ForAll([x], ...)` / `Exists([x], ...)`.
- Define `premises = [...]`: a list with one z3 Boolean expression per premise, in the given order.
- Define `conclusion = ...`: one z3 Boolean expression for the conclusion.
- Translate only what the sentences say; do not add background knowledge.
- Do NOT create a Solver, call check(), print, read files or use any module other than z3, math,
  itertools, functools, collections, re, typing, dataclasses, fractions, decimal, json.
  We run the program in a sandbox and decide the entailment ourselves from `premises` and `conclusion`.
Reply with exactly one ```python fenced block containing the complete program.

Example
Premises:
1. All dogs are animals.
2. Rex is a dog.
Conclusion: Rex is an animal.

```python
from z3 import *

Obj = DeclareSort("Obj")
Dog = Function("Dog", Obj, BoolSort())
Animal = Function("Animal", Obj, BoolSort())
rex = Const("rex", Obj)
x = Const("x", Obj)

premises = [
    ForAll([x], Implies(Dog(x), Animal(x))),  # 1. All dogs are animals.
    Dog(rex),  # 2. Rex is a dog.
]
conclusion = Animal(rex)
```"""

FOL_SYSTEM = """\
You translate natural-language logical reasoning problems into first-order logic in FOLIO's notation.
Syntax:
- Predicates start with a capital letter and take constants or variables: `Dog(rex)`, `Likes(x, y)`.
- Constants are lower-case words (`rex`, `new_york`); variables are single lower-case letters bound
  by a quantifier.
- Connectives: ¬ (not), ∧ (and), ∨ (or), ⊕ (exclusive or), → (implies), ↔ (iff).
  Quantifiers: ∀x, ∃x (a quantifier scopes as far right as possible; use parentheses when in doubt).
- No function symbols, no arithmetic; `=` and `≠` between constants/variables are allowed.
Write one formula per premise, in the given order, then the conclusion, in exactly this format:
```fol
P1: <formula for premise 1>
P2: <formula for premise 2>
...
C: <formula for the conclusion>
```
Use the same predicate name and the same number of arguments for the same concept everywhere.
Translate only what the sentences say; do not add background knowledge.
Reply with exactly one ```fol fenced block.

Example
Premises:
1. All dogs are animals.
2. Rex is a dog.
Conclusion: Rex is an animal.

```fol
P1: ∀x (Dog(x) → Animal(x))
P2: Dog(rex)
C: Animal(rex)
```"""

USER_TEMPLATE = """\
{problem}

{instruction}"""

Z3PY_INSTRUCTION = "Write the Z3Py program defining `premises` and `conclusion` for this problem."
FOL_INSTRUCTION = "Write the formulas: {count}then `C:` for the conclusion."

REPAIR_TEMPLATE = """\
Your previous answer could not be used:

{error}

Fix the problem and reply again with the complete corrected {what} in one ```{fence} fenced block."""


def z3py_messages(task: FolioTask) -> list[dict[str, str]]:
    """The first request for a Z3Py program."""
    user = USER_TEMPLATE.format(problem=task.problem_text(), instruction=Z3PY_INSTRUCTION)
    return [{"role": "system", "content": Z3PY_SYSTEM}, {"role": "user", "content": user}]


def fol_messages(task: FolioTask) -> list[dict[str, str]]:
    """The first request for FOL lines."""
    n = len(task.premises)
    count = f"`P1:` to `P{n}:` (one per premise), " if n else "one `P<i>:` line per premise, "
    user = USER_TEMPLATE.format(problem=task.problem_text(), instruction=FOL_INSTRUCTION.format(count=count))
    return [{"role": "system", "content": FOL_SYSTEM}, {"role": "user", "content": user}]


def repair_message(error: str, *, mode: str) -> str:
    """The follow-up turn quoting the exact error of the previous attempt."""
    if mode == "z3py":
        return REPAIR_TEMPLATE.format(error=error, what="program", fence="python")
    return REPAIR_TEMPLATE.format(error=error, what="formulas (all premises and the conclusion)", fence="fol")


def prompt_version_of(mode: str) -> str:
    """``autoformalizer-<mode>-<hash>``: changes whenever one of this mode's prompt texts does."""
    if mode == "z3py":
        texts = (Z3PY_SYSTEM, USER_TEMPLATE, Z3PY_INSTRUCTION, REPAIR_TEMPLATE)
    else:
        texts = (FOL_SYSTEM, USER_TEMPLATE, FOL_INSTRUCTION, REPAIR_TEMPLATE)
    return prompt_version(f"autoformalizer-{mode}", *texts)
