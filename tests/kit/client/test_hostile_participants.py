"""Hostile participants on 127.0.0.1: gzip bombs, endless drips, cards that point elsewhere."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from green_agent.kit.client.calls import Budget, call_participant
from green_agent.kit.client.messages import OutboundMessage, TransportError
from green_agent.kit.client.origin import origin
from green_agent.kit.client.transport import A2ATransport
from tests.folio.conftest import parts_by_role, run_assessment
from tests.support.hostile import (
    bomb_app,
    endless_drip_app,
    lying_card_app,
    recorder_app,
    rpc_under_path_app,
)
from tests.support.participants import running_participant
from tests.support.servers import running_app
from tests.support.timing import scaled

MSG = OutboundMessage(text="Is it raining?", data={"task": "folio", "id": "7"})


async def call(url: str, *, timeout_s: float = 30.0, max_bytes: int = 1 << 20):
    async with A2ATransport(card_timeout_s=scaled(10)) as transport:
        budget = Budget(timeout_s=timeout_s, max_retries=0, max_response_bytes=max_bytes)
        return await call_participant(transport, url, MSG, budget)


@pytest.mark.parametrize("drip_bytes", [0, 4096])
def test_gzip_bomb_reply_is_response_too_large(drip_bytes: int) -> None:
    app, seen = bomb_app(decoded_bytes=64 << 20, drip_bytes=drip_bytes, drip_s=0.01)
    with running_app(app) as url:
        result = asyncio.run(call(url))
    assert seen.posts == 1
    assert (result.status, result.kind) == ("runtime_error", "response_too_large")
    assert "decoded" in (result.error or "")


def test_a_content_coding_we_did_not_ask_for_is_refused() -> None:
    app, _ = bomb_app(decoded_bytes=1 << 20, encoding="br")
    with running_app(app) as url:
        result = asyncio.run(call(url))
    assert (result.status, result.kind) == ("runtime_error", "invalid_response")
    assert "'br'" in (result.error or "")


def test_gzip_bomb_card_is_refused() -> None:
    app, seen = bomb_app(decoded_bytes=64 << 20, in_card=True)

    async def fetch(url: str) -> None:
        async with A2ATransport(card_timeout_s=scaled(10)) as transport:
            await transport.card(url)

    with running_app(app) as url, pytest.raises(TransportError) as err:
        asyncio.run(fetch(url))
    assert err.value.kind == "response_too_large" and not err.value.retryable
    assert seen.cards == 1 and seen.posts == 0


def test_a_healthy_call_finishes_while_a_slow_bomb_is_being_decoded() -> None:
    """The bomb drips 1 KB (≈1 MB decoded) every 0.3 s up to a 16 MiB cap (about 5 s, far longer than the
    healthy call needs even on a crowded machine): the loop stays free."""
    bomb, _ = bomb_app(decoded_bytes=64 << 20, drip_bytes=1024, drip_s=scaled(0.3))
    finished: list[str] = []

    async def both(bomb_url: str, good_url: str) -> tuple:
        async def tagged(name: str, url: str, max_bytes: int):
            result = await call(url, max_bytes=max_bytes)
            finished.append(name)
            return result

        return await asyncio.gather(tagged("bomb", bomb_url, 16 << 20), tagged("good", good_url, 1 << 20))

    with running_app(bomb) as bomb_url, running_participant("label") as (good_url, _):
        bombed, good = asyncio.run(both(bomb_url, good_url))
    assert (bombed.status, bombed.kind) == ("runtime_error", "response_too_large")
    assert good.status == "ok"
    assert finished == ["good", "bomb"]


def test_endless_drip_ends_as_a_timeout_within_the_items_budget() -> None:
    app, seen = endless_drip_app(every_s=0.1)
    with running_app(app) as url:
        result = asyncio.run(call(url, timeout_s=1.5))
    assert seen.posts == 1
    assert (result.status, result.kind) == ("timeout", "timeout")


async def test_bomb_items_end_as_response_too_large_in_a_real_assessment(tmp_path: Path) -> None:
    app, _ = bomb_app(decoded_bytes=64 << 20)
    with running_app(app) as bomb_url, running_participant("label") as (good_url, _):
        result = await run_assessment(
            tmp_path, {"bomb": bomb_url, "good": good_url}, {"limit": 3, "timeout_s": 30}
        )
    parts = parts_by_role(result)
    assert {(it["status"], it["kind"]) for it in parts["bomb"]["items"]} == {
        ("runtime_error", "response_too_large")
    }
    assert parts["good"]["answered"] == 3


async def test_a_card_pointing_elsewhere_is_never_followed(tmp_path: Path) -> None:
    decoy, decoy_seen = recorder_app()
    with running_app(decoy) as decoy_url:
        liar, liar_seen = lying_card_app(decoy_url + "/")
        with running_app(liar) as liar_url, running_participant("label") as (good_url, _):
            result = await run_assessment(
                tmp_path, {"liar": liar_url, "good": good_url}, {"limit": 3, "max_retries": 0}
            )
    parts = parts_by_role(result)
    items = parts["liar"]["items"]
    assert {(it["status"], it["kind"]) for it in items} == {("runtime_error", "card_origin_mismatch")}
    assert decoy_url.rsplit(":", 1)[1] in items[0]["error"]  # says where the card pointed
    assert decoy_seen.posts == 0 and liar_seen.posts == 0
    assert "DECOY-SECRET-BODY" not in json.dumps(result.parts)
    assert parts["good"]["answered"] == 3


def test_a_card_on_the_same_origin_with_another_path_is_followed() -> None:
    with running_app(rpc_under_path_app("/rpc")) as url:
        result = asyncio.run(call(url))
    assert result.status == "ok" and "Answer:" in result.reply.text


def test_send_refuses_a_card_pointing_to_another_port() -> None:
    decoy, decoy_seen = recorder_app()
    with running_app(decoy) as decoy_url:
        liar, _ = lying_card_app(decoy_url + "/agent")
        with running_app(liar) as liar_url:
            result = asyncio.run(call(liar_url))
    assert (result.status, result.kind) == ("runtime_error", "card_origin_mismatch")
    assert decoy_seen.posts == 0


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("http://Host:80/a", "http://host/b/c", True),
        ("https://h/", "https://h:443/rpc", True),
        ("http://h:8080/", "http://h:8081/", False),
        ("http://h/", "https://h/", False),
        ("http://user:pw@h:1/", "http://h:1/x", True),
        ("http://h.example/", "http://h.example.evil/", False),
    ],
)
def test_origin_compares_scheme_host_and_port(a: str, b: str, same: bool) -> None:
    assert (origin(a) == origin(b)) is same
