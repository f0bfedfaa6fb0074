"""Prover-derived difficulty strata of FOLIO items, cached per dataset hash (docs/report.md, Difficulty).

An item's stratum comes from its gold FOL: when Z3 proves its gold label True or False, the number of
premises a minimal unsat core keeps (``1`` … ``3``, ``4+``); gold Uncertain items are their own
stratum (``uncertain``: a countermodel search has no depth); a gold label the FOL does not prove is
``unproved`` (a prover could not say what the item needs); an item without usable FOL is ``no_fol``.
Computing a dataset's strata takes seconds, so they are kept in
``<cache_dir>/strata-<sha256>-<timeout>ms.json``, keyed by the dataset's hash, the prover timeout (an
item Z3 settles only in a longer time is ``unproved`` under a shorter one) and :data:`VERSION`, and
items are added as they are first needed.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from green_agent.core.scoring.cluster import clustered_interval
from green_agent.core.scoring.metrics import interval_fields, item_cluster, item_correct
from green_agent.core.scoring.stats import wilson_interval
from green_agent.folio.datasets.items import FolioItem
from green_agent.kit.cli_args import PROVER_TIMEOUT_MS
from green_agent.logic import FolSyntaxError, parse_problem
from green_agent.logic.strata import proof_strata

VERSION = 1
"""Bumped whenever the strata's definition changes (older cache files are then ignored)."""
DEEPEST = 4
"""Premises-needed counts of this or more share the hardest proof stratum, ``4+``."""
PROOF_STRATA: tuple[str, ...] = (*(str(k) for k in range(1, DEEPEST)), f"{DEEPEST}+")
"""Strata of proved items, by premises needed, easiest first; the last is the hardest."""
STRATA: tuple[str, ...] = (*PROOF_STRATA, "uncertain", "unproved", "no_fol")
"""Every stratum, in report order."""
TIMEOUT_MS = PROVER_TIMEOUT_MS
"""Per Z3 query, as everywhere: a problem Z3 cannot settle within it is ``unproved``."""


@dataclass(frozen=True)
class ItemStrata:
    """What the prover says about one item's difficulty."""

    stratum: str
    """One of :data:`STRATA`."""
    premises_needed: int | None
    """Premises in a minimal unsat core of the gold label's proof (proved True/False items only)."""
    quantifier_depth: int | None
    """Deepest quantifier nesting over those premises and the conclusion (proved items only)."""
    negated_conclusion: bool
    """The gold conclusion FOL is a negation at its top."""
    verdict: str | None
    """Z3's verdict on the gold FOL (None without FOL)."""


def proof_stratum(premises_needed: int) -> str:
    """The stratum of a proof that needs ``premises_needed`` premises; a conclusion valid or
    contradictory on its own (no premise needed, one train item) counts with the one-premise proofs."""
    return f"{DEEPEST}+" if premises_needed >= DEEPEST else str(max(1, premises_needed))


def item_strata(item: FolioItem, timeout_ms: int = TIMEOUT_MS) -> ItemStrata:
    """Decide the item's gold FOL and place it in a stratum."""
    if not item.premises_fol or not item.conclusion_fol:
        return ItemStrata("no_fol", None, None, False, None)
    try:
        problem = parse_problem(item.premises_fol, item.conclusion_fol, lenient=True)
    except FolSyntaxError:
        return ItemStrata("no_fol", None, None, False, None)
    proof = proof_strata(problem, timeout_ms)
    needed = proof.premises_needed
    if item.label == "Uncertain":
        stratum = "uncertain"
    elif proof.verdict == item.label and needed is not None:
        stratum = proof_stratum(needed)
    else:
        stratum = "unproved"
    proved = stratum in PROOF_STRATA
    return ItemStrata(
        stratum,
        needed if proved else None,
        proof.quantifier_depth if proved else None,
        proof.negated_conclusion,
        proof.verdict,
    )


def _cache_file(cache_dir: Path, sha256: str, timeout_ms: int) -> Path:
    return Path(cache_dir) / f"strata-{sha256}-{timeout_ms}ms.json"


def _read_cache(path: Path, timeout_ms: int) -> dict[str, ItemStrata]:
    """The cached strata, or nothing when the file is missing, unreadable, of another version or
    made with another prover timeout."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != VERSION or data.get("timeout_ms") != timeout_ms:
            return {}
        return {str(k): ItemStrata(**v) for k, v in data["items"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def _write_cache(path: Path, sha256: str, timeout_ms: int, strata: Mapping[str, ItemStrata]) -> None:
    """Write atomically (a temp file in the same folder, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "version": VERSION,
        "dataset_sha256": sha256,
        "timeout_ms": timeout_ms,
        "items": {k: asdict(v) for k, v in strata.items()},
    }
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, ensure_ascii=False)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def dataset_strata(
    items: Sequence[FolioItem], sha256: str, cache_dir: Path | None, timeout_ms: int = TIMEOUT_MS
) -> dict[str, ItemStrata]:
    """Strata of ``items`` (by id), from the cache of dataset ``sha256`` and prover timeout
    ``timeout_ms`` where it has them; the rest are computed and added to it. ``cache_dir=None``
    computes everything and keeps nothing."""
    path = None if cache_dir is None else _cache_file(cache_dir, sha256, timeout_ms)
    cached = {} if path is None else _read_cache(path, timeout_ms)
    missing = [it for it in items if it.id not in cached]
    for item in missing:
        cached[item.id] = item_strata(item, timeout_ms)
    if path is not None and missing:
        _write_cache(path, sha256, timeout_ms, cached)
    return {it.id: cached[it.id] for it in items}


def annotate_strata(items: Sequence[dict[str, Any]], strata: Mapping[str, ItemStrata]) -> None:
    """Add ``stratum``, ``premises_needed``, ``quantifier_depth`` and ``negated_conclusion`` to each
    result item whose id (or ``source_id``, for a variant: the strata of its source) has strata."""
    for item in items:
        found = strata.get(str(item.get("source_id") or item.get("id")))
        if found is not None:
            item["stratum"] = found.stratum
            item["premises_needed"] = found.premises_needed
            item["quantifier_depth"] = found.quantifier_depth
            item["negated_conclusion"] = found.negated_conclusion


def strata_block(items: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per stratum (every one of :data:`STRATA`, in order, with zeros where no item falls; a leaderboard
    sums shards field by field): total, correct, accuracy, its item-level Wilson interval and the
    clustered one with ``clusters``, ``design_effect``, ``ci_method`` and ``ci_reason`` (both null over
    no item; docs/statistics.md)."""
    groups: dict[str, list[int]] = {s: [] for s in STRATA}
    for i, item in enumerate(items):
        if isinstance(item.get("stratum"), str):
            groups.setdefault(item["stratum"], []).append(i)
    block: dict[str, dict[str, Any]] = {}
    for stratum, members in groups.items():
        correct = [item_correct(items[i]) for i in members]
        k, n = sum(correct), len(correct)
        lo, hi = wilson_interval(k, n)
        clustered = clustered_interval(correct, [item_cluster(items[i], i) for i in members])
        block[stratum] = {
            "total": n,
            "correct": k,
            "accuracy": round(k / n, 6) if n else 0.0,
            "accuracy_ci95": [round(lo, 6), round(hi, 6)] if n else None,
            **interval_fields(clustered),
        }
    return block
