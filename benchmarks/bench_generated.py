"""Benchmark the generated FOL benchmark's generator against issue 41's targets, and print its checks.

(a) generation + Z3 labelling of 1,000 items at mixed depths 1-12 (the default knobs), the command line
    with ``--jobs 2``: wall time and the CPU of its whole process tree — target <= 10 s on 2 cores;
(b) the CPU one item costs by depth and by distractors on one core, beside the admission cost model
    (green_agent/generated/budget.py), and the model's estimate of (a);
(c) the E cross-check (``--prover both``) of 200 items on 2 processes — target <= 60 s;
(d) surface cues on 2,000 items: a bag-of-words classifier against the majority class, negated
    conclusions by label, and the one cue left by design (the last rule's direction, without distractors).

    python benchmarks/bench_generated.py [--count 1000] [--e-count 200] [--jobs 2]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from goals import check, exit_status, goal
from tree_cpu import load, run_tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from green_agent.generated import budget, generate_items, parse_knobs
from green_agent.generated.generate import Draft, draft, item_plan
from green_agent.logic import Atom, Iff, Implies, Not, parse
from green_agent.logic.nodes import Formula, _Binary, _Quant
from tests.support.shortcuts import bag, majority_share, naive_bayes_accuracy, negation_independence

SEED = 20260
BUG_DROPS = ("not_as_built", "no_witness", "core", "disagree")
_SUMMARY = re.compile(
    r"dropped: (?P<dropped>[^;]+); minimal premise set = built proof: (?P<rate>[^ ]+) \((?P<n>[^)]+)\)"
)


def _cli(count: int, jobs: int, prover: str) -> tuple[float, float, str]:
    """Run the command line; (wall s, tree CPU s, its summary line)."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = [sys.executable, "-m", "green_agent.generated", "generate", "--seed", str(SEED)]
        argv += ["--count", str(count), "--jobs", str(jobs), "--prover", prover, "--out", f"{tmp}/set.jsonl"]
        run = run_tree(argv, cwd=Path(__file__).resolve().parents[1])
        if run.returncode != 0:
            print(run.stderr)
            check(f"{count} items ({prover}) generated", False, f"exit {run.returncode}")
        return run.wall_s, run.cpu_s, run.stderr.strip().splitlines()[-1]


def _drops(summary: str, what: str) -> None:
    found = _SUMMARY.search(summary)
    if not found:
        check(f"{what}: summary read", False, summary)
        return
    dropped, rate = found["dropped"], found["rate"]
    print(f"  dropped: {dropped}; minimal premise set = built proof: {rate} ({found['n']})")
    bugs = [d for d in BUG_DROPS if re.search(rf"\b{d} \d", dropped)]
    check(f"{what}: no attempt dropped for a generator bug or a prover disagreement", not bugs, dropped)
    check(f"{what}: depth agreement >= 95%", float(rate.rstrip("%")) >= 95.0, rate)


def part_a(count: int, jobs: int) -> None:
    print(
        f"(a) {count} items, default knobs (depth 1-12, distractors 0-8), Z3 labels, --jobs {jobs} ({load()})"
    )
    wall, cpu, summary = _cli(count, jobs, "z3")
    print(
        f"  wall {wall:.1f} s ({count / wall:.0f} items/s), CPU {cpu:.1f} s ({1000 * cpu / count:.1f} ms an item)"
    )
    estimate = budget.plan_cost(parse_knobs(count=count))
    print(
        f"  the admission model estimates {estimate:.1f} s of CPU ({estimate / jobs:.1f} s on {jobs} cores)"
    )
    _drops(summary, f"(a) {count} items")
    goal(f"{count} items with Z3 labels: wall <= 10 s on 2 cores", f"{wall:.1f} s", wall <= 10, kind="wall")
    goal(
        f"{count} items with Z3 labels: CPU <= 20 s (10 s on each of 2 cores)",
        f"{cpu:.1f} s",
        cpu <= 20,
        kind="cpu",
    )
    check(
        "(a) the admission model does not underestimate by more than 2x",
        estimate * 2 >= cpu,
        f"{estimate:.1f} s",
    )


def _cpu_per_item(**knobs: object) -> float:
    made = parse_knobs(count=12, **knobs)
    start = time.process_time()
    generate_items(made, SEED)
    return 1000 * (time.process_time() - start) / made.count


def part_b() -> None:
    print("(b) CPU per item on one core (12 items each, Z3 labels), beside the admission model")
    generate_items(parse_knobs(count=3), 1)  # warm: parser, Z3 contexts
    for depth in (1, 3, 6, 9, 12):
        ms = _cpu_per_item(depth=depth, distractors=4)
        print(
            f"  depth {depth:2}, 4 distractors: {ms:5.1f} ms (model {budget.item_cost_ms(depth, 4):5.1f} ms)"
        )
    for distractors in (0, 20):
        ms = _cpu_per_item(depth=6, distractors=distractors)
        model = budget.item_cost_ms(6, distractors)
        print(f"  depth  6, {distractors:2} distractors: {ms:5.1f} ms (model {model:5.1f} ms)")


def part_c(count: int, jobs: int) -> None:
    print(f"(c) {count} items with the E cross-check (--prover both), --jobs {jobs} ({load()})")
    wall, cpu, summary = _cli(count, jobs, "both")
    print(f"  wall {wall:.1f} s ({count / wall:.0f} items/s), CPU {cpu:.1f} s with E's runs")
    _drops(summary, f"(c) {count} items, E")
    goal(f"E cross-check of {count} items: wall <= 60 s", f"{wall:.1f} s", wall <= 60, kind="wall")


def _signed_atoms(f: Formula, positive: bool = True) -> list[tuple[str, bool]]:
    """The atoms of ``f`` with the sign each stands under (quantifiers looked through)."""
    if isinstance(f, Not):
        return _signed_atoms(f.body, not positive)
    if isinstance(f, Atom):
        return [(f.pred, positive)]
    if isinstance(f, _Binary):
        return _signed_atoms(f.left, positive) + _signed_atoms(f.right, positive)
    if isinstance(f, _Quant):
        return _signed_atoms(f.body, positive)
    return []


def _consequents(f: Formula) -> list[tuple[str, bool]]:
    """Signed atoms in the consequent of a rule (either side of a biconditional)."""
    body = f.body if isinstance(f, _Quant) else f
    if isinstance(body, Implies):
        return _signed_atoms(body.right)
    return _signed_atoms(body) if isinstance(body, Iff) else []


def _last_rule_cue(d: Draft) -> bool:
    """Guess True when the conclusion's signed literal is some rule's consequent, else False: right?"""
    literal = _signed_atoms(parse(d.conclusion_fol).formula)[-1]
    consequents = {lit for p in d.premises_fol for lit in _consequents(parse(p).formula)}
    return ("True" if literal in consequents else "False") == d.theory.label


def part_d(n: int = 2000) -> None:
    print(f"(d) surface cues on {n} items (default knobs; drafts: built and written, labels as built)")
    knobs = parse_knobs(count=n)
    drafts = [draft(knobs, SEED, item_plan(knobs, SEED, i), 0) for i in range(n)]
    rows = [(bag(d.premises, d.conclusion), d.theory.label) for d in drafts]
    majority = majority_share([label for _, label in rows[n // 2 :]])
    accuracy = naive_bayes_accuracy(rows[: n // 2], rows[n // 2 :])
    print(
        f"  bag-of-words naive Bayes: {100 * accuracy:.1f}% on the held-out half (majority class {100 * majority:.1f}%)"
    )
    check("(d) bag of words <= majority + 5 points", accuracy <= majority + 0.05, f"{100 * accuracy:.1f}%")
    rates, p_value = negation_independence([(d.conclusion, d.theory.label) for d in drafts])
    shown = ", ".join(f"{label} {100 * rate:.1f}%" for label, rate in rates.items())
    print(f"  negated conclusions: {shown} (chi-square p = {p_value:.2f})")
    check("(d) negation independent of the label (p > 0.01)", p_value > 0.01, f"p = {p_value:.2f}")
    verbatim = sum(d.conclusion in d.premises for d in drafts if d.theory.label == "True")
    check("(d) no True conclusion is a premise", verbatim == 0, f"{verbatim}")
    proved = [d for d in drafts if d.theory.label != "Uncertain"]
    for name, part in (
        ("no distractors", [d for d in proved if d.theory.distractors == 0]),
        ("1+ distractors", [d for d in proved if d.theory.distractors > 0]),
    ):
        right = Counter(_last_rule_cue(d) for d in part)
        print(
            f"  last-rule cue on True/False items, {name}: {100 * right[True] / len(part):.1f}% of {len(part)}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=1000, help="items for (a) (default 1000)")
    parser.add_argument("--e-count", type=int, default=200, help="items for (c) (default 200)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for (a) and (c) (default 2)")
    args = parser.parse_args()
    part_a(args.count, args.jobs)
    part_b()
    part_c(args.e_count, args.jobs)
    part_d()
    return exit_status()


if __name__ == "__main__":
    raise SystemExit(main())
