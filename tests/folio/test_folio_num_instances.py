"""``num_instances`` as the AgentBeats leaderboard workflow defines it: the run's total, across shards."""

from __future__ import annotations

from green_agent.folio.config import parse_config
from green_agent.folio.engine import select_items


def test_num_instances_caps_the_whole_run_and_the_shards_split_it(sample_items) -> None:
    first = [it.id for it in sample_items[:7]]
    assert [it.id for it in select_items(sample_items, parse_config({"num_instances": 7}))] == first
    seen: list[str] = []
    for index in range(3):
        config = parse_config({"num_instances": 7, "num_shards": 3, "shard_index": index, "seed": 1})
        seen += [it.id for it in select_items(sample_items, config)]
    assert sorted(seen) == sorted(first) and len(seen) == 7


def test_num_instances_larger_than_the_dataset_takes_everything(sample_items) -> None:
    config = parse_config({"num_instances": len(sample_items) + 50})
    assert len(select_items(sample_items, config)) == len(sample_items)
