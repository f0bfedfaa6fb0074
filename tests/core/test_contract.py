"""The typed plugin contract: closed transport-error kinds, cards as JSON, checked participant parts."""

from __future__ import annotations

import asyncio
from typing import Any, get_args

import pytest

from green_agent.anomaly.assessor import create as create_anomaly
from green_agent.core.contract import (
    AssessmentResult,
    Assessor,
    AssessorContext,
    ParticipantPart,
    participant_part,
)
from green_agent.core.runner import UnitAssessor
from green_agent.folio.assessor import create as create_folio
from green_agent.generated.assessor import create as create_generated
from green_agent.kit.client.messages import TRANSPORT_ERROR_KINDS, TransportError, TransportErrorKind
from green_agent.kit.client.transport import A2ATransport
from tests.support.participants import running_participant
from tests.support.servers import refused_port
from tests.support.timing import scaled

ENVELOPE = {
    "assessor": "folio",
    "role": "p",
    "score": 50.0,
    "max_score": 100,
    "resumed_items": 0,
    "resumed_from": None,
}


def test_transport_error_kinds_are_a_closed_set() -> None:
    assert set(get_args(TransportErrorKind)) == TRANSPORT_ERROR_KINDS
    for kind in get_args(TransportErrorKind):
        assert TransportError(kind, "detail").kind == kind
    with pytest.raises(ValueError, match="unknown transport error kind 'timeoutish'"):
        TransportError("timeoutish", "detail")  # type: ignore[arg-type]


def test_the_transport_maps_a_refused_connection_and_fetches_cards_as_json() -> None:
    async def card(url: str) -> dict[str, Any]:
        async with A2ATransport(card_timeout_s=scaled(10)) as transport:
            return await transport.card(url)

    with running_participant("label", name="contract agent") as (url, _):
        found = asyncio.run(card(url))
    assert found["name"] == "contract agent" and isinstance(found["skills"], list)
    with refused_port() as dead, pytest.raises(TransportError) as err:
        asyncio.run(card(f"http://127.0.0.1:{dead}/"))
    assert err.value.kind == "card_unavailable" and err.value.retryable


def test_both_plugins_are_served_by_the_unit_assessor_like_any_plugin(tmp_path) -> None:
    for create in (create_folio, create_anomaly, create_generated):
        assessor = create(AssessorContext(tmp_path))
        assert isinstance(assessor, UnitAssessor) and isinstance(assessor, Assessor)


def test_a_participant_part_is_its_fields_with_kind_first() -> None:
    part: ParticipantPart = participant_part({**ENVELOPE, "accuracy": 0.5})
    assert list(part)[:2] == ["kind", "assessor"] and dict(part) == {
        "kind": "participant",
        **ENVELOPE,
        "accuracy": 0.5,
    }
    result = AssessmentResult.of("text", [part], [{"kind": "comparison"}])
    assert result.parts == [dict(part), {"kind": "comparison"}]


@pytest.mark.parametrize(
    ("key", "value"),
    [("role", None), ("score", "high"), ("score", True), ("resumed_items", 1.5), ("resumed_from", 3)],
)
def test_a_participant_part_missing_or_mistyping_the_envelope_is_refused(key: str, value: Any) -> None:
    with pytest.raises(ValueError, match=repr(key)):
        participant_part({**ENVELOPE, key: value})
    with pytest.raises(ValueError, match=repr(key)):
        participant_part({k: v for k, v in ENVELOPE.items() if k != key})
