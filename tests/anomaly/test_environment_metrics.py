"""Environment semantics per action, action parsing, and metrics against hand-computed episodes."""

from __future__ import annotations

import pytest

from green_agent.anomaly.actions import ActionError, parse
from green_agent.anomaly.documents import load_documents
from green_agent.anomaly.environment import Environment
from green_agent.anomaly.injection import Injected, Planted
from green_agent.anomaly.metrics import episode_record, match, prf, summarize

DOC = load_documents()["news-harbor-bridge"]


def _env(feedback="neutral", max_steps=20):
    planted = (
        Planted("A1", "numeric_change", "deep", "S2", "length", ("S7",), ("F1",)),
        Planted("A2", "logical_fallacy", "shallow", "S5", "fallacy", ("S5",), ()),
    )
    return Environment(Injected(DOC, tuple(DOC.render()), planted), "ep-1", feedback, max_steps, "0")


def act(env, **raw):
    return env.apply(parse("", [raw], env.n_segments))


def test_parse_accepts_data_part_or_json_in_text_and_rejects_garbage():
    assert parse("", [{"action": "request_context", "segment_id": 3.0}], 7).args == {"segment_id": "S3"}
    text = 'I think {"action": "FINALIZE"} then {"action": "QUERY_KNOWLEDGE", "query": "length"}'
    assert parse(text, [], 7).name == "QUERY_KNOWLEDGE"
    for text, data, kind in [
        ("hello", [], "unparseable"),
        ("", [{"action": "DANCE"}], "unknown_action"),
        ("", [{"action": "REQUEST_CONTEXT", "segment_id": "S9"}], "bad_argument"),
        ("", [{"action": "REPORT_ANOMALY", "segment_id": "S1", "type": "typo"}], "bad_argument"),
        ("", [{"action": "PROPOSE_HYPOTHESIS", "hypothesis": "x", "confidence": 2}], "bad_argument"),
    ]:
        with pytest.raises(ActionError) as err:
            parse(text, data, 7)
        assert err.value.kind == kind


def test_observation_starts_with_outline_then_tracks_state():
    env = _env()
    text, data = env.observation()
    assert [o["segment_id"] for o in data["outline"]] == [f"S{i}" for i in range(1, 8)]
    assert data["step"] == 1 and data["budget_left"]["steps"] == 20 and data["visible_segments"] == []
    assert "REPORT_ANOMALY" in data["allowed_actions"] and "Outline" in text
    result = act(env, action="REQUEST_CONTEXT", segment_id="S2")
    assert result["text"] == DOC.render()[1]
    _, data = env.observation()
    assert (
        "outline" not in data and data["visible_segments"] == ["S2"] and data["last_action_result"] == result
    )


def test_each_action_and_redundancy():
    env = _env()
    act(env, action="REQUEST_CONTEXT", segment_id="S2")
    assert act(env, action="REQUEST_CONTEXT", segment_id="S2")["note"] == "repeated action"
    answer = act(env, action="QUERY_KNOWLEDGE", query="How long is the Harbor Bridge?")
    assert answer["facts"][0]["fact_id"] == "F1"
    assert (
        act(env, action="QUERY_KNOWLEDGE", query="favourite colour of the moon")["answer"] == "no information"
    )
    hit = act(env, action="PROPOSE_HYPOTHESIS", hypothesis="S2 disagrees with S7", confidence=0.7)
    assert hit["feedback"].startswith("promising")
    test = act(env, action="TEST_HYPOTHESIS", hypothesis="S1 vs S3", test={"compare": ["S1", "S3"]})
    assert test["feedback"].startswith("not supported") and [s["segment_id"] for s in test["segments"]] == [
        "S1",
        "S3",
    ]
    act(
        env,
        action="REPORT_ANOMALY",
        segment_id="S2",
        type="numeric_change",
        description="length",
        evidence=["S7"],
    )
    assert (
        act(env, action="REPORT_ANOMALY", segment_id="S2", type="numeric_change")["note"] == "repeated action"
    )
    assert env.invalid("unparseable", "no action")["ok"] is False
    act(env, action="FINALIZE")
    assert env.done and env.end_reason == "finalized" and env.steps == 10
    assert env.redundant == 2 and env.counts["invalid_action"] == 1


def test_feedback_modes():
    assert (
        _env("none").apply(parse("", [{"action": "PROPOSE_HYPOTHESIS", "hypothesis": "S2"}], 7))["feedback"]
        == "noted"
    )
    env = _env("misleading")
    shown = [
        act(env, action="PROPOSE_HYPOTHESIS", hypothesis=f"S2 is wrong ({i})")["feedback"] for i in range(12)
    ]
    assert any(s.startswith("not supported") for s in shown)  # lies about a real anomaly, seeded
    assert shown == [
        act(_e, action="PROPOSE_HYPOTHESIS", hypothesis=f"S2 is wrong ({i})")["feedback"]
        for _e in [_env("misleading")]
        for i in range(12)
    ]


def test_max_steps_ends_the_episode():
    env = _env(max_steps=3)
    for _ in range(3):
        act(env, action="REQUEST_CONTEXT", segment_id="S1")
    assert env.end_reason == "max_steps" and env.redundant == 2


def test_hand_computed_episode_and_summary():
    env = _env("misleading")
    act(env, action="REQUEST_CONTEXT", segment_id="S2")  # 1
    act(env, action="QUERY_KNOWLEDGE", query="How long is the Harbor Bridge?")  # 2 useful (F1)
    act(env, action="QUERY_KNOWLEDGE", query="no such thing at all")  # 3 not useful
    env.hypotheses.clear()
    act(env, action="PROPOSE_HYPOTHESIS", hypothesis="S2 length is off")  # 4
    act(env, action="PROPOSE_HYPOTHESIS", hypothesis="S6 speed")  # 5
    act(env, action="REPORT_ANOMALY", segment_id="S2", type="numeric_change")  # 6 TP
    act(env, action="REPORT_ANOMALY", segment_id="S3", type="entity_swap")  # 7 FP
    act(env, action="REPORT_ANOMALY", segment_id="S5", type="negation")  # 8 FP (wrong type)
    act(env, action="FINALIZE")
    env.failure("timeout", "timeout", "no reply")
    rec = episode_record(env, role="r")
    assert (rec["tp"], rec["fp"], rec["fn"]) == (1, 2, 1)
    assert rec["queries"] == 2 and rec["useful_queries"] == 1
    assert rec["hypotheses"] == 2 and rec["converted"] == 1  # S2 reported after its hypothesis
    misled = [h for h in env.hypotheses if h.misled]
    corrected = sum(1 for h in misled if (h.truth != "miss") == ("S2" in h.segments))
    assert rec["misled"] == len(misled) and rec["self_corrected"] == corrected
    assert rec["timeout"] == 1 and rec["actions"] == 9 and rec["redundant"] == 0
    part = summarize(
        "r",
        [
            rec,
            {
                **rec,
                "feedback": "neutral",
                "tp": 2,
                "fp": 0,
                "fn": 0,
                "matches": [
                    {"report": 0, "planted": "A1", "by": "rule"},
                    {"report": 1, "planted": "A2", "by": "rule"},
                ],
                "reports": [
                    {"segment_id": "S2", "type": "numeric_change", "step": 1},
                    {"segment_id": "S5", "type": "logical_fallacy", "step": 2},
                ],
            },
        ],
        primary="neutral",
        time_used=1.0,
    )
    assert part["kind"] == "participant" and part["score"] == 100.0 and part["max_score"] == 100
    assert part["f1_misleading"] == prf(1, 3, 2)["f1"] == 0.4
    assert part["f1_drop_misleading"] == 0.6
    assert part["per_type"]["logical_fallacy"] == {
        "planted": 1,
        "found": 1,
        "reported": 1,
        "correct": 1,
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
    }
    assert part["per_depth"]["deep"] == {"planted": 1, "found": 1, "recall": 1.0}
    assert part["timeout"] == 2 and len(part["episodes"]) == 2 and "trace" not in part["episodes"][0]


def test_matching_is_one_to_one_and_judge_pairs_count_on_the_right_segment():
    planted = [Planted("A1", "temporal", "deep", "S1", "d", ("S2",), ())]
    reports = [{"segment_id": "S1", "type": "numeric_change"}, {"segment_id": "S1", "type": "temporal"}]
    assert match(planted, reports) == [{"report": 1, "planted": "A1", "by": "rule"}]
    assert match(planted, reports, {(0, "A1")}) == [{"report": 0, "planted": "A1", "by": "judge"}]
