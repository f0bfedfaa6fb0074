"""A damaged journal never fails an assessment: bad records are played again, good ones are kept."""

from __future__ import annotations

import json

import jsonschema

from green_agent.anomaly.injection import DEPTHS, TYPES
from tests.anomaly.conftest import assess, participant_parts
from tests.anomaly.test_a2a_episodes import TWO_DOCS, _baseline
from tests.support.schemas import shipped_schema as load_schema
from white_agents.anomaly_baseline.__main__ import create_app as baseline_app


def test_a_partial_or_invalid_journal_record_is_played_again_and_nothing_finished_is_lost(tmp_path):
    app, port = _baseline()
    first = participant_parts(assess(tmp_path, {"baseline": (app, port)}, TWO_DOCS))["baseline"]
    [journal] = tmp_path.glob("*/items.jsonl")
    kept, damaged = (json.loads(line) for line in journal.read_text().splitlines())
    del damaged["tp"]  # schema-invalid: the scoring reads it
    partial = {"role": "baseline", "episode_id": damaged["episode_id"]}  # a line cut short: no feedback
    journal.write_text(
        "\n".join(
            [json.dumps(kept), json.dumps(damaged), json.dumps(partial), "{not json", json.dumps([1, 2])]
        )
        + "\n"
    )

    again_app = baseline_app(f"http://127.0.0.1:{port}/"), port  # same agent, same card
    again = participant_parts(assess(tmp_path, {"baseline": again_app}, {**TWO_DOCS, "resume": True}))
    part = again["baseline"]
    jsonschema.validate(part, load_schema("anomaly-result"))
    assert part["episodes_total"] == 2 and part["resumed_items"] == 1
    resumed = {e["episode_id"]: e["resumed"] for e in part["episodes"]}
    assert resumed == {kept["episode_id"]: True, damaged["episode_id"]: False}
    assert part["tp"] == first["tp"] and part["planted"] == first["planted"]
    replayed = [json.loads(line) for line in journal.read_text().splitlines()[5:]]
    assert [r["episode_id"] for r in replayed] == [damaged["episode_id"]] and "tp" in replayed[0]


def test_the_journal_schema_knows_every_type_and_depth():
    defs = load_schema("anomaly-journal")["$defs"]
    assert tuple(defs["type"]["enum"]) == TYPES and tuple(defs["depth"]["enum"]) == DEPTHS
