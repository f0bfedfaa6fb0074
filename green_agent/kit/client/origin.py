"""A participant's card may not steer the green agent to another address.

The request names each participant's base URL; the card fetched from there lists the interfaces to
call. Only interfaces with the same origin (scheme, host, port) as that URL are followed — another
path on the same origin is a legitimate RPC endpoint (and the AgentBeats gateway rewrites cards to
its own origin) — so a hostile card cannot make the green agent POST to an address the request did
not name.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from a2a.types import AgentCard

from green_agent.kit.client.messages import TransportError
from green_agent.kit.redact import redact_url

_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` of ``url``, lower-cased, default ports made explicit."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port if port is not None else _DEFAULT_PORTS.get(scheme)


def same_origin_card(card: AgentCard, url: str) -> AgentCard:
    """``card`` keeping only the interfaces on ``url``'s origin; raise ``card_origin_mismatch`` if none."""
    want = origin(url)
    kept = [i for i in card.supported_interfaces if origin(i.url) == want]
    if not kept:
        elsewhere = ", ".join(sorted({redact_url(i.url) for i in card.supported_interfaces})) or "none"
        raise TransportError(
            "card_origin_mismatch",
            f"the agent card at {redact_url(url)} points elsewhere ({elsewhere}); only interfaces "
            "on the participant URL's own scheme, host and port are followed",
        )
    if len(kept) == len(card.supported_interfaces):
        return card
    safe = AgentCard()
    safe.CopyFrom(card)
    del safe.supported_interfaces[:]
    safe.supported_interfaces.extend(kept)
    return safe
