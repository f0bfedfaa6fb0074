"""Documents are consistent, injection is reproducible, and every planted anomaly is detectable in principle."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from green_agent.anomaly.documents import DocumentError, load_documents, parse_document
from green_agent.anomaly.injection import DEPTHS, TYPES, candidates, inject
from green_agent.anomaly.knowledge import NO_INFORMATION, KnowledgeBase

DOCS = load_documents()


def test_sixteen_documents_in_every_genre():
    assert len(DOCS) >= 16
    genres = Counter(d.genre for d in DOCS.values())
    assert set(genres) == {"news", "manual", "history", "science", "minutes", "narrative"}
    assert all(n >= 2 for n in genres.values())


def test_every_type_and_depth_can_be_planted_in_several_documents():
    seen = Counter()
    for doc in DOCS.values():
        for edit in candidates(doc, random.Random(0)):
            seen[edit.type] += 1
            seen[edit.depth] += 1
    for name in (*TYPES, "shallow", "deep"):
        assert seen[name] >= 5, name


def test_injection_is_reproducible_by_seed():
    doc = DOCS["news-harbor-bridge"]
    for depth in DEPTHS:
        assert inject(doc, "7|0", depth) == inject(doc, "7|0", depth)
    variants = {inject(doc, f"{s}|0", "deep").segments for s in range(8)}
    assert len(variants) > 1


def _original(doc, segment):
    return doc.render()[int(segment[1:]) - 1]


@pytest.mark.parametrize("depth", DEPTHS)
def test_every_planted_anomaly_is_detectable_in_principle(depth):
    for doc in DOCS.values():
        for seed in range(3):
            injected = inject(doc, f"{seed}|0", depth)
            assert 1 <= len(injected.planted) <= 2
            fact_ids = {f.id for f in doc.facts}
            for p in injected.planted:
                assert p.type in TYPES and p.depth == depth
                target = int(p.segment[1:]) - 1
                # the target really changed, and the evidence exists
                assert injected.segments[target] != _original(doc, p.segment)
                assert set(p.facts) <= fact_ids
                assert all(1 <= int(s[1:]) <= len(doc.templates) for s in p.evidence)
                assert p.evidence or p.facts
                if p.type == "kb_contradiction":
                    assert p.facts, p
                elif depth == "compound":
                    continue  # a compound pair may change each other's evidence: that is the interaction
                elif depth == "deep" or p.type in ("negation", "entity_swap"):
                    # evidence lies in other, unchanged segments
                    others = [s for s in p.evidence if s != p.segment]
                    assert others, p
                    assert any(injected.segments[int(s[1:]) - 1] == _original(doc, s) for s in others), p
                else:
                    assert p.evidence == (p.segment,)
            if depth == "compound" and len(injected.planted) == 2:
                assert injected.planted[0].linked == "A2" and injected.planted[1].linked == "A1"


def test_knowledge_base_is_deterministic_and_says_no_information():
    kb = KnowledgeBase(DOCS["news-harbor-bridge"].facts)
    answer = kb.query("How long is the Harbor Bridge?")
    assert answer.facts[0].id == "F1" and "412 metres" in answer.text
    assert kb.query("How long is the Harbor Bridge?") == answer
    assert kb.query("Who is Tomas Reyes?").facts[0].value == "mayor"
    assert kb.query("What is the capital of France?").text == NO_INFORMATION
    assert kb.query("").facts == ()


def test_inconsistent_document_is_refused():
    raw = {
        "id": "bad",
        "genre": "news",
        "title": "t",
        "segments": ["{a} and {b} make {t} in total."],
        "slots": {
            "a": {"kind": "number", "value": 1},
            "b": {"kind": "number", "value": 2},
            "t": {"kind": "number", "value": 4},
        },
        "sums": [{"total": "t", "parts": ["a", "b"]}],
    }
    with pytest.raises(DocumentError, match="sum"):
        parse_document(raw)
    raw["slots"]["t"]["value"] = 3
    assert parse_document(raw).render() == ["1 and 2 make 3 in total."]
