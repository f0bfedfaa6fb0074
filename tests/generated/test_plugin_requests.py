"""What a request gets from the generated plugin, over real A2A: no seed is a new set every time (its
seed recorded), a set too costly to generate or a bad knob is refused in one line naming the knob
before any participant is called, shards split one set, and admission counts generated items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from green_agent.kit.client.messages import TransportError
from green_agent.kit.server.limits import ServerLimits
from green_agent.logic.eprover import find_eprover
from tests.generated.served import assess, by_role, generated_green
from tests.support.participants import running_participant

SMALL = {"count": 6, "depth": "1-3"}


async def test_a_request_without_a_seed_is_a_new_set_each_time(tmp_path: Path) -> None:
    with running_participant("label") as (url, stats), generated_green(tmp_path / "runs") as green:
        first = by_role(await assess(green, {"p": url}, SMALL))["p"]
        second = by_role(await assess(green, {"p": url}, SMALL))["p"]
    made = [first["generated"], second["generated"]]
    assert all(m["seed_drawn"] for m in made) and made[0]["seed"] != made[1]["seed"]
    assert made[0]["sha256"] != made[1]["sha256"]
    assert [p["reproducibility"]["seed"] for p in (first, second)] == [m["seed"] for m in made]
    assert all(f"--seed {m['seed']} " in m["command"] for m in made)
    assert stats.requests == 12 and first["resumed_items"] == second["resumed_items"] == 0


@pytest.mark.parametrize(
    ("config", "field", "words"),
    [
        ({"count": 100_000}, "config.count", "over the budget of 60 s"),
        ({"count": 2000, "depth": 12, "generation_budget_s": 1}, "config.count", "over the budget of 1 s"),
        ({"depth": "0-3"}, "config.depth", "expected depths from 1 to 12"),
        (
            {"labels": "False", "constructs": "universal"},
            "config.labels",
            "False needs the negation construct",
        ),
        ({"constructs": ["universal", "wat"]}, "config.constructs.1", "got 'wat'"),
        ({"num_shards": 2}, "config.seed", "a sharded run needs one"),
        ({"seed": "99999999999999999999"}, "config.seed", "should match pattern"),
    ],
)
async def test_a_bad_or_too_costly_request_is_refused_in_one_line(
    tmp_path: Path, config: dict, field: str, words: str
) -> None:
    with (
        running_participant("label") as (url, stats),
        generated_green(tmp_path / "runs") as green,
        pytest.raises(TransportError) as err,
    ):
        await assess(green, {"p": url}, config)
    assert err.value.kind == "task_rejected"
    assert f"Rejected: {field}: " in err.value.detail and words in err.value.detail, err.value.detail
    assert "\n" not in err.value.detail
    assert stats.card_requests == 0 and stats.requests == 0


async def test_shards_split_one_set(tmp_path: Path) -> None:
    config = {"seed": 8, "count": 9, "num_shards": 2}
    with running_participant("label") as (url, _), generated_green(tmp_path / "runs") as green:
        shards = [
            by_role(await assess(green, {"p": url}, {**config, "shard_index": i}))["p"] for i in range(2)
        ]
    ids = [[it["id"] for it in s["items"]] for s in shards]
    assert ids == [[f"gen-{i:05d}" for i in range(0, 9, 2)], [f"gen-{i:05d}" for i in range(1, 9, 2)]]
    assert shards[0]["generated"]["sha256"] == shards[1]["generated"]["sha256"]
    assert shards[0]["generated"]["items"] == 9


async def test_admission_counts_generated_items(tmp_path: Path) -> None:
    limits = ServerLimits(max_items=10)
    with running_participant("label") as (url, stats), generated_green(tmp_path / "runs", limits) as green:
        with pytest.raises(TransportError) as err:
            await assess(green, {"p": url}, {"count": 12})
        within = by_role(await assess(green, {"p": url}, {"count": 12, "num_instances": 10}))["p"]
    assert err.value.kind == "task_rejected" and "12 items × 1 participants = 12" in err.value.detail
    assert within["total"] == 10 and within["generated"]["items"] == 10 and stats.requests == 10


async def test_failures_are_outcomes_never_labels_and_unsent_items_are_not_journaled(tmp_path: Path) -> None:
    """A participant without a card: every item a runtime error of that kind, none journaled (a resumed
    run asks again); one that answers no label: parse errors with the reply kept for the report."""
    run_dir = tmp_path / "runs"
    config = {"seed": 2, "count": 3, "depth": 1}
    with (
        running_participant("no_card") as (cardless, _),
        running_participant(lambda text, data: "I am not sure.") as (vague, _),
        generated_green(run_dir) as green,
    ):
        parts = by_role(await assess(green, {"cardless": cardless, "vague": vague}, config))
    assert parts["cardless"]["runtime_error"] == 3 and parts["cardless"]["correct"] == 0
    assert {it["kind"] for it in parts["cardless"]["items"]} == {"card_unavailable"}
    assert all(it["predicted"] is None and it["attempts"] == 0 for it in parts["cardless"]["items"])
    assert parts["vague"]["parse_error"] == 3 and parts["vague"]["coverage"] == 0
    assert {it["raw"] for it in parts["vague"]["items"]} == {"I am not sure."}
    journaled = [
        json.loads(line) for path in run_dir.glob("*/items.jsonl") for line in path.read_text().splitlines()
    ]
    assert sorted((r["role"], r["id"]) for r in journaled) == [("vague", f"gen-0000{i}") for i in range(3)]


async def test_prover_both_cross_checks_with_e_or_is_refused_without_it(tmp_path: Path) -> None:
    """With E on this machine the set's labels are proved by Z3 and E (and the command says so);
    without it the request is refused naming config.prover, before any call."""
    config = {"seed": 6, "count": 3, "depth": "1-2", "prover": "both"}
    with running_participant("label") as (url, stats), generated_green(tmp_path / "runs") as green:
        if find_eprover() is None:
            with pytest.raises(TransportError) as err:
                await assess(green, {"p": url}, config)
            assert "Rejected: config.prover: 'both' needs the E prover" in err.value.detail
            assert stats.requests == 0
            return
        part = by_role(await assess(green, {"p": url}, config))["p"]
    assert part["generated"]["prover"] == "both" and part["generated"]["command"].endswith(" --prover both")
    assert part["total"] == 3 and part["generated"]["dropped"] == {}
