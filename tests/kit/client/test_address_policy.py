"""No way into the host's network: the address policy, from the URL and at the connection.

Every URL here is only parsed, or (the connect-path tests) called on loopback, where the policy must
refuse it before a byte is sent. Checked by hand that the tests fail with the protection off:
``is_public`` returning True admits every URL of the table; ``guard_pool`` doing nothing lets the
transport fetch the loopback participant's card.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from green_agent.kit.client.address_policy import REFUSED, AddressPolicy, literal_address
from green_agent.kit.client.messages import OutboundMessage, TransportError
from green_agent.kit.client.transport import A2ATransport
from tests.support.participants import running_participant

PUBLIC = AddressPolicy()

REFUSED_URLS = [
    "http://127.0.0.1:9019/",
    "http://127.1/",
    "http://2130706433/",  # 127.0.0.1 as one decimal number
    "http://0x7f000001/",  # ... in hex
    "http://0177.0.0.1/",  # ... in octal
    "http://0x7f.1/",
    "http://localhost:9019/",
    "http://LOCALHOST./",
    "http://agent.localhost/",
    "http://0.0.0.0:9019/",
    "http://0/",
    "http://[::]/",
    "http://[::1]:9019/",
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped
    "http://[::ffff:7f00:1]/",
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
    "http://169.254.169.254/latest/meta-data/",  # a cloud's metadata service
    "http://[fe80::1]/",
    "http://10.1.2.3/",
    "http://172.16.0.1/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",  # CGNAT
    "http://[fd00::1]/",  # unique local
    "http://[fc00::1]/",
    "http://224.0.0.1/",  # multicast
    "http://[ff02::1]/",
    "http://240.0.0.1/",  # reserved
    "http://255.255.255.255/",
    "http://192.0.2.1/",  # documentation
    "http://public.example@127.0.0.1/",  # userinfo: the host is what follows '@'
    "http://8.8.8.8/?/../../admin",  # a query would choose the card fetch's path
    "http://8.8.8.8/#/admin",
    "http://8.8.8.8?x",
    "ftp://8.8.8.8/",
    "file:///etc/passwd",
    "gopher://8.8.8.8/",
    "http:///nohost",
    "http://8.8.8.8:99999/",
]


@pytest.mark.parametrize("url", REFUSED_URLS)
def test_a_public_agent_refuses_every_spelling_of_a_private_address(url: str) -> None:
    assert PUBLIC.url_problem(url) is not None


@pytest.mark.parametrize(
    "url",
    [
        "http://8.8.8.8/",
        "https://agent.example.org/a2a/",
        "http://user:p%40ss@agent.example.org:8080/x",
        "http://[2001:4860::8888]/",
    ],
)
def test_public_addresses_and_names_pass_the_url_check(url: str) -> None:
    assert PUBLIC.url_problem(url) is None


def test_allowing_private_addresses_keeps_the_url_shape_rules() -> None:
    private_ok = AddressPolicy(allow_private=True)
    assert private_ok.url_problem("http://127.0.0.1:9019/") is None
    assert private_ok.url_problem("http://127.0.0.1:9019/?x") is not None
    assert private_ok.url_problem("ftp://127.0.0.1/") is not None


def test_legacy_ipv4_spellings_are_read_as_the_resolver_reads_them() -> None:
    assert str(literal_address("2130706433")) == "127.0.0.1"
    assert str(literal_address("0x7f.1")) == "127.0.0.1"
    assert literal_address("agent.example.org") is None


def _card(url: str, policy: AddressPolicy, **kwargs: bool) -> TransportError:
    async def go() -> TransportError:
        async with A2ATransport(address_policy=policy, card_timeout_s=30, **kwargs) as transport:
            with pytest.raises(TransportError) as err:
                await transport.send(url, OutboundMessage("hi"), max_response_bytes=1 << 20)
            return err.value

    return asyncio.run(go())


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_the_connection_itself_is_refused_whatever_the_admission_check_said(
    host: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The check that counts is on the address connected to: a name resolving to loopback (as a
    rebinding name does at its second lookup) is refused there, and nothing reaches the server."""
    caplog.set_level(logging.WARNING)
    with running_participant("label") as (url, stats):
        err = _card(url.replace("127.0.0.1", host), PUBLIC, quiet_card_errors=True)
    assert err.kind == "card_unavailable"
    assert err.detail.endswith("did not load") and "127.0.0.1" not in err.detail.replace(host, "")
    assert stats.card_requests == 0 and stats.requests == 0
    assert "not a public address" in caplog.text and REFUSED in caplog.text


def test_allowing_private_addresses_reaches_the_loopback_participant() -> None:
    with running_participant("label") as (url, stats):

        async def go() -> str:
            async with A2ATransport(address_policy=AddressPolicy(allow_private=True)) as transport:
                reply = await transport.send(url, OutboundMessage("hi"), max_response_bytes=1 << 20)
                return reply.state

        assert asyncio.run(go()) == "completed"
    assert stats.requests == 1
