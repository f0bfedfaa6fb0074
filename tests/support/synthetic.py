"""Synthetic but realistic FOLIO results documents, for the report's tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from green_agent.core.scoring.compare import compare
from green_agent.core.scoring.metrics import summarize_items
from green_agent.core.scoring.repro import reproducibility_block
from green_agent.folio.datasets.items import FolioItem
from green_agent.folio.strata import PROOF_STRATA, strata_block
from green_agent.folio.variant_scoring import annotate_items, robustness
from green_agent.folio.variants import Variant, VariantSet
from green_agent.logic.labels import LABELS

_KINDS = ("connection_refused", "http_status", "jsonrpc_error", "task_failed")


def make_items(
    n: int,
    *,
    skill: float,
    seed: int,
    fail_rate: float = 0.05,
    usage: bool = True,
    texts: bool = True,
) -> list[dict[str, Any]]:
    """``n`` FOLIO-like items answered by an agent that is right with probability ``skill``.

    Gold labels and texts depend only on the item index (so agents share items); answers and
    failures on ``seed``.
    """
    rng = random.Random(seed)
    items = []
    for i in range(n):
        gold = LABELS[(i * 7) % 3]
        roll = rng.random()
        item: dict[str, Any] = {
            "id": f"folio-{i:04d}",
            "gold": gold,
            "attempts": 1,
            "error": None,
            "kind": None,
            "stratum": "uncertain" if gold == "Uncertain" else PROOF_STRATA[i % len(PROOF_STRATA)],
        }
        if roll < fail_rate:
            status = rng.choice(("timeout", "runtime_error", "runtime_error", "parse_error"))
            item |= {"predicted": None, "status": status, "correct": False}
            item["latency_ms"] = 120_000.0 if status == "timeout" else round(rng.uniform(5, 400), 1)
            if status == "runtime_error":
                item["kind"] = rng.choice(_KINDS)
                item["error"] = f"{item['kind']}: <b>upstream</b> said 'no' & closed"
                item["attempts"] = 3
            elif status == "parse_error":
                item["error"] = "no label in reply: 'I think it is probably true... or false?'"
            else:
                item["error"] = "no reply within 120 s"
        else:
            right = rng.random() < skill
            pred = gold if right else rng.choice([x for x in LABELS if x != gold])
            item |= {"predicted": pred, "status": "ok", "correct": right}
            item["latency_ms"] = round(rng.lognormvariate(7.5, 0.6), 1)
        if usage:
            p, c = rng.randint(300, 900), rng.randint(20, 400)
            item["usage"] = {
                "prompt_tokens": p,
                "completion_tokens": c,
                "cost_usd": (p * 0.3 + c * 2.5) / 1e6,
            }
        if texts:
            item["premises"] = [f"All x{i} that are P{k} are Q{k}." for k in range(3)] + [f"x{i} is P0."]
            item["conclusion"] = f'x{i} is Q0 <and> not "R".'
        items.append(item)
    return items


def participant_part(role: str, items: list[dict[str, Any]], dataset: Mapping[str, Any]) -> dict[str, Any]:
    """A participant data part (docs/architecture.md, Results) built from ``items``."""
    summary = summarize_items(items)
    time_used = sum(it["latency_ms"] or 0 for it in items) / 1000
    return {
        "kind": "participant",
        "assessor": "folio",
        "role": role,
        **summary,
        "strata": strata_block(items),
        "time_used": round(time_used, 3),
        "dataset": dict(dataset),
        "items": items,
    }


def variant_set(items: Sequence[Mapping[str, Any]], kinds: Sequence[str]) -> VariantSet:
    """Items read as variants in turn: item ``i`` is kind ``kinds[i % k]`` of source ``i // k``."""
    k = len(kinds)
    variants = tuple(
        Variant(FolioItem(it["id"], (), "", it["gold"]), f"source-{i // k:04d}", kinds[i % k])
        for i, it in enumerate(items)
    )
    return VariantSet(tuple(kinds), 0, variants, -(-len(items) // k))


def with_robustness(part: dict[str, Any], kinds: Sequence[str]) -> dict[str, Any]:
    """``part`` as a run with FOLIO variants reports it: items annotated, a ``robustness`` block added."""
    variants = variant_set(part["items"], kinds)
    annotate_items(part["items"], variants)
    return {**part, "robustness": robustness(part["items"], variants)}


def make_results(
    agents: Mapping[str, tuple[str | None, float]],
    *,
    n: int = 60,
    seed: int = 0,
    dataset: str = "folio-sample",
    with_comparison: bool = True,
    with_repro: bool = True,
    variants: Sequence[str] = (),
    **item_options: Any,
) -> dict[str, Any]:
    """A results file ``{"participants": {role: id}, "results": [...]}``.

    ``agents`` maps role -> (AgentBeats id, skill); with ``variants`` (kinds), the items are read as
    variants of ``n / len(variants)`` sources and each part gets a ``robustness`` block.
    """
    ds = {"name": dataset, "split": "validation", "sha256": f"{seed:064x}", "n": n}
    parts: list[dict[str, Any]] = [
        participant_part(role, make_items(n, skill=skill, seed=seed * 1000 + k, **item_options), ds)
        for k, (role, (_, skill)) in enumerate(agents.items())
    ]
    if variants:
        parts = [with_robustness(p, variants) for p in parts]
    if with_repro:
        repro = reproducibility_block(
            dataset=ds,
            config={"dataset": dataset, "timeout_s": 120, "api_key": "sk-secret"},
            seed=seed,
            started_at="2025-01-01T00:00:00Z",
            finished_at="2025-01-01T00:10:00Z",
            participants_cards={role: {"name": role, "version": "1.0"} for role in agents},
        )
        for p in parts:
            p["reproducibility"] = repro
    if with_comparison:
        parts.append(compare(parts))
    return {"participants": {role: aid for role, (aid, _) in agents.items()}, "results": parts}
