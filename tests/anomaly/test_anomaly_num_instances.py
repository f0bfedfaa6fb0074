"""``num_instances`` as the AgentBeats leaderboard workflow defines it: the run's total, across shards."""

from __future__ import annotations

from green_agent.anomaly.assessor import plan_episodes
from green_agent.anomaly.config import parse_config
from green_agent.anomaly.documents import load_documents

DOCS = load_documents()


def test_num_instances_caps_the_whole_run_and_the_shards_split_it() -> None:
    everything = plan_episodes(parse_config({}), DOCS)
    assert len(everything) > 5
    assert plan_episodes(parse_config({"num_instances": 5}), DOCS) == everything[:5]
    shards = [
        plan_episodes(parse_config({"num_instances": 5, "num_shards": 2, "shard_index": i}), DOCS)
        for i in (0, 1)
    ]
    assert sorted(s.episode_id + s.feedback for shard in shards for s in shard) == sorted(
        s.episode_id + s.feedback for s in everything[:5]
    )
