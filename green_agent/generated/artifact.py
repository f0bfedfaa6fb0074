"""The ``Result`` of a generated assessment (docs/generated.md, Results).

One flat data part per participant: the shared summary fields (:func:`~green_agent.plugin.summarize_items`:
accuracy, failures, per gold label, latency), then what this benchmark adds — accuracy per proof depth
(the headline), per depth band (shallow 1-3, middle 4-7, deep 8+), per construct — and the set's
provenance: the seed, the knobs, the generator version, the dropped attempts, the depth agreement and
the command that writes the same set again. Each item is its own theory (its own words, chain and
distractors, drawn from the seed and its index alone), so items are independent and every interval
is an item-level Wilson interval.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence, Set
from typing import Any

from green_agent.generated import CONSTRUCTS, GeneratedItem, GeneratedSet, jsonl
from green_agent.generated.cli import command_line
from green_agent.logic.labels import LABELS
from green_agent.plugin import resume_lines, summarize_items

BANDS: dict[str, tuple[int, int]] = {"shallow": (1, 3), "middle": (4, 7), "deep": (8, 12)}
"""The depth bands the leaderboard reads: name -> (first, last) depth."""
NAME = "generated"
"""The ``dataset.name`` of every part (and the plugin's name)."""


def provenance(made: GeneratedSet, *, seed_drawn: bool) -> dict[str, Any]:
    """What was generated and how to make it again (every shard of a run says the same)."""
    knobs = made.knobs
    return {
        "seed": str(made.seed),  # a string: a JSON number (an A2A data part's double) keeps 53 bits
        "seed_drawn": seed_drawn,
        "generator_version": made.generator_version,
        "knobs": {
            "count": knobs.count,
            "depth": list(knobs.depth),
            "distractors": list(knobs.distractors),
            "labels": dict(knobs.labels),
            "constructs": list(knobs.constructs),
            "vocabulary": knobs.vocabulary,
        },
        "prover": made.prover,
        "items": len(made.items),
        "sha256": hashlib.sha256(jsonl(made.items).encode("utf-8")).hexdigest(),
        "dropped": dict(sorted(made.dropped.items())),
        "proofs": made.proofs,
        "proofs_as_built": made.proofs_as_built,
        "agreement": None if made.agreement is None else round(made.agreement, 6),
        "command": command_line(made),
    }


def result_item(outcome: Mapping[str, Any], item: GeneratedItem, *, resumed: bool) -> dict[str, Any]:
    """The result's row of one outcome: the journal line less its role, with what the item was."""
    row = {k: v for k, v in outcome.items() if k != "role"}
    row.update(
        depth=item.depth, distractors=item.distractors, constructs=list(item.constructs), resumed=resumed
    )
    return row


def _block(items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    summary = summarize_items(items, LABELS)
    return {k: summary[k] for k in ("total", "correct", "accuracy", "accuracy_ci95")}


def breakdowns(items: Sequence[Mapping[str, Any]], depths: Sequence[int]) -> dict[str, Any]:
    """``per_depth`` (every depth of the knobs, zeros where a shard has none: shards sum field by
    field), ``depth_bands`` and ``per_construct`` (an item counts under each of its constructs)."""
    per_depth = {str(d): _block([it for it in items if it["depth"] == d]) for d in depths}
    bands = {
        name: {"depths": f"{lo}-{hi}", **_block([it for it in items if lo <= it["depth"] <= hi])}
        for name, (lo, hi) in BANDS.items()
    }
    constructs = {c: _block([it for it in items if c in it["constructs"]]) for c in CONSTRUCTS}
    return {"per_depth": per_depth, "depth_bands": bands, "per_construct": constructs}


def participant_fields(
    outcomes: Sequence[Mapping[str, Any]],
    units: Sequence[GeneratedItem],
    made: Mapping[str, Any],
    *,
    time_used: float,
    resumed: Set[str],
    resumed_from: str | None,
    reproducibility: Mapping[str, Any],
) -> dict[str, Any]:
    """One participant's part but its ``assessor`` and ``role`` (the unit runner puts them in front);
    ``made`` is the set's :func:`provenance`."""
    items = [
        result_item(o, unit, resumed=unit.id in resumed) for o, unit in zip(outcomes, units, strict=True)
    ]
    part: dict[str, Any] = dict(summarize_items(items, LABELS))
    part.update(breakdowns(items, made["knobs"]["depth"]))
    part["generated"] = dict(made)
    part["time_used"] = round(time_used, 3)
    part["resumed_items"] = len(resumed)
    part["resumed_from"] = resumed_from if resumed else None
    part["dataset"] = {"name": NAME, "split": None, "sha256": made["sha256"], "n": made["items"]}
    part["items"] = items
    part["reproducibility"] = dict(reproducibility)
    return part


def _band_text(part: Mapping[str, Any]) -> str:
    bands = []
    for name, band in part["depth_bands"].items():
        if band["total"]:
            bands.append(f"{name} {100 * band['accuracy']:.1f}% ({band['correct']}/{band['total']})")
    return ", ".join(bands)


def summary_text(parts: Sequence[Mapping[str, Any]]) -> str:
    """The human-readable (non-JSON) summary: the set, each participant's score and depth bands, and
    the command that writes the set again."""
    if not parts:
        return "Generated FOL assessment: no participant"
    made = parts[0]["generated"]
    agreement = "n/a" if made["agreement"] is None else f"{100 * made['agreement']:.1f}%"
    dropped = ", ".join(f"{k} {v}" for k, v in made["dropped"].items()) or "none"
    lines = [
        f"Generated FOL assessment: {made['items']} items, seed {made['seed']}"
        + (" (drawn fresh)" if made["seed_drawn"] else "")
        + f", generator {made['generator_version']}, labels proved by {made['prover']}; dropped attempts: "
        f"{dropped}; minimal premise set = built proof: {agreement}"
    ]
    for p in parts:
        lo, hi = p["accuracy_ci95"]
        failures = [
            f"{p[k]} {k.replace('_', ' ')}" for k in ("timeout", "runtime_error", "parse_error") if p[k]
        ]
        lines.append(
            f"- {p['role']}: {p['score']:.1f}/100 — {p['correct']}/{p['total']} correct "
            f"(95% CI {100 * lo:.1f}–{100 * hi:.1f}); by depth: {_band_text(p)}; "
            + (f"failures: {', '.join(failures)}" if failures else "no failures")
        )
    lines += [f"- {line}" for line in resume_lines(parts)]
    lines.append(f"- the same set again: {made['command']}")
    return "\n".join(lines)
