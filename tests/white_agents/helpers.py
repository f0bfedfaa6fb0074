"""Helpers for the white-agent tests: serve an agent on a free port, send it one FOLIO task."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import z3
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import SendMessageRequest

from green_agent.kit.client.task_fold import TaskFold
from green_agent.kit.parts import user_message
from tests.support.servers import free_port, running_app
from white_agents.common.llm import LLMSettings

DOG_PREMISES = ["All dogs are animals.", "Rex is a dog."]
DOG_CONCLUSION = "Rex is an animal."

GOOD_PROGRAM = """\
```python
from z3 import *

Obj = DeclareSort("Obj")
Dog = Function("Dog", Obj, BoolSort())
Animal = Function("Animal", Obj, BoolSort())
rex = Const("rex", Obj)
x = Const("x", Obj)
premises = [ForAll([x], Implies(Dog(x), Animal(x))), Dog(rex)]
conclusion = Animal(rex)
```"""

GOOD_FOL = """\
```fol
P1: ∀x (Dog(x) → Animal(x))
P2: Dog(rex)
C: Animal(rex)
```"""


def settings(fake: Any, **kw: Any) -> LLMSettings:
    """Settings pointing litellm at the scripted endpoint."""
    base = {
        "model": "openai/test",
        "api_base": fake.url,
        "api_key": "sk-test",
        "backoff_s": 0.01,
        "retries": 2,
    }
    base.update(kw)
    return LLMSettings(**base)


def folio_text(premises: Sequence[str], conclusion: str) -> str:
    lines = ["Premises:"] + [f"{i}. {p}" for i, p in enumerate(premises, 1)]
    lines += ["", f"Conclusion: {conclusion}", "", "Answer with exactly one of: True, False, Uncertain"]
    return "\n".join(lines)


@dataclass
class TaskResult:
    """A finished task as the client sees it."""

    state: str
    text: str
    data: list[dict[str, Any]]


@contextmanager
def serve(make_app: Any) -> Iterator[str]:
    """Serve ``make_app(url)`` on a free port whose URL is in its card; yield the base URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with running_app(make_app(url), port=port):
        yield url


async def send_task(
    url: str,
    premises: Sequence[str] = DOG_PREMISES,
    conclusion: str = DOG_CONCLUSION,
    *,
    structured: bool = True,
    item_id: str = "t1",
    timeout_s: float = 60.0,
) -> TaskResult:
    """Send one FOLIO task (text + data part, as the assessor does) and fold the final Task."""
    data = {
        "task": "folio",
        "id": item_id,
        "premises": list(premises),
        "conclusion": conclusion,
        "labels": ["True", "False", "Uncertain"],
    }
    msg = user_message(folio_text(premises, conclusion), data if structured else None)
    fold = TaskFold()
    async with httpx.AsyncClient(timeout=timeout_s) as hc:
        card = await A2ACardResolver(hc, url.rstrip("/")).get_agent_card()
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=hc)).create(card)
        async for resp in client.send_message(SendMessageRequest(message=msg)):
            fold.add(resp)
        await client.close()
    assert fold.task_id is not None and fold.done, "no finished task in the reply"
    texts = fold.texts() + ([fold.final_text] if fold.final_text else [])
    return TaskResult(fold.state or "", "\n".join(texts), fold.data() + fold.final_data)


def sample_items() -> list[Any]:
    """The embedded FOLIO sample's items."""
    from green_agent.folio.datasets.manifest import resolve_dataset

    return list(resolve_dataset("folio-sample").items)


def _item_for(prompt: str, items: list[Any]) -> Any:
    matches = [it for it in items if it.conclusion in prompt and all(p in prompt for p in it.premises)]
    assert len(matches) == 1, f"{len(matches)} sample items match the prompt"
    return matches[0]


def _z3py_program(item: Any) -> str:
    from green_agent.logic.problem import parse_problem
    from green_agent.logic.z3_backend import Z3Symbols, problem_to_z3

    problem = parse_problem(list(item.premises_fol), item.conclusion_fol, True)
    ctx = z3.Context()
    exprs = problem_to_z3(problem.formulas, Z3Symbols.declare(problem.signature, ctx))
    solver = z3.Solver(ctx=ctx)
    for e in exprs:
        solver.add(e)
    n = len(exprs) - 1
    return (
        "```python\nimport z3\n\n"
        f"_formulas = z3.parse_smt2_string({solver.sexpr()!r})\n"
        f"premises = [_formulas[i] for i in range({n})]\n"
        f"conclusion = _formulas[{n}]\n```"
    )


def oracle(items: list[Any]) -> Any:
    """A fake-LLM script entry answering every task correctly (CoT from the gold label, the
    formalizers from the gold FOL; the z3py program rebuilds the formulas from SMT-LIB)."""
    from white_agents.autoformalizer import prompts

    def answer(body: dict[str, Any]) -> str:
        system = body["messages"][0]["content"]
        item = _item_for(body["messages"][1]["content"], items)
        if system == prompts.Z3PY_SYSTEM:
            return _z3py_program(item)
        if system == prompts.FOL_SYSTEM:
            lines = [f"P{i}: {f}" for i, f in enumerate(item.premises_fol, 1)] + [f"C: {item.conclusion_fol}"]
            return "```fol\n" + "\n".join(lines) + "\n```"
        return f"Reasoning about the premises.\nAnswer: {item.label}"

    return answer
