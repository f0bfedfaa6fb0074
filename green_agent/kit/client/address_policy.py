"""Which addresses a public green agent may call: public ones only, checked where it connects.

A participant URL is the requester's choice. Without a check, a public green agent fetched
``http://127.0.0.1:…``, ``http://169.254.169.254/`` (a cloud's metadata service), private ranges, and
every other spelling of them (``0.0.0.0``, ``::ffff:127.0.0.1``, ``2130706433``), and its error texts
told the requester which ports were open. :class:`AddressPolicy` refuses them in two places:

- at admission (:meth:`AddressPolicy.url_problem`), from the URL alone: http(s) only, a host, no
  query or fragment (``?``/``#`` let the request choose the whole path of the card fetch), and a host
  written as an address (in any spelling the resolver accepts) must be public;
- at connect time (:class:`GuardedBackend`, httpcore's network backend): the host is resolved, every
  address it resolves to must be public, and the connection goes to the address that was checked, so
  a name that resolves to a public address when checked and to a private one a moment later (DNS
  rebinding) cannot slip through. A refusal is a connect error that says nothing about the target;
  the operator's log says which address was refused and why.

Public means none of: loopback, private (RFC 1918, ULA ``fc00::/7``), link-local (``169.254/16``,
``fe80::/10``), shared/CGNAT (``100.64/10``), multicast, unspecified, reserved or documentation
ranges; an IPv6 address that embeds an IPv4 one (mapped ``::ffff:0:0/96``, compatible ``::/96``, 6to4
``2002::/16``, Teredo, NAT64 ``64:ff9b::/96``) is judged by the IPv4 address it carries.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpcore

log = logging.getLogger(__name__)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
NAT64 = ipaddress.ip_network("64:ff9b::/96")
REFUSED = "refused by this green agent's address policy"
"""The whole text a refused connection reports (no address, no reason: those go to the log)."""


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, compatible, 6to4, Teredo, NAT64), if any."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    packed = int(address)
    if address in NAT64 or (packed >> 32 == 0 and packed > 1):  # ::a.b.c.d (not :: or ::1)
        return ipaddress.IPv4Address(packed & 0xFFFFFFFF)
    return None


def is_public(address: IPAddress) -> bool:
    """Whether ``address`` is one a public green agent may call (see the module docstring)."""
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            return is_public(inner)
    return address.is_global and not address.is_multicast and not address.is_reserved


def literal_address(host: str) -> IPAddress | None:
    """``host`` as an address when it is written as one, in any spelling the resolver accepts
    (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``[::1]``); ``None`` for a name."""
    bare = host.strip("[]")
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    try:
        return ipaddress.IPv4Address(socket.inet_aton(bare))
    except OSError:
        return None


@dataclass(frozen=True)
class AddressPolicy:
    """Public addresses only, unless ``allow_private`` (a trusted network: a compose file, the harness)."""

    allow_private: bool = False

    def url_problem(self, url: str) -> str | None:
        """Why ``url`` may not name a participant (one line, from the URL alone), or ``None``."""
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
            parts.port  # noqa: B018 - raises on a port out of range or not a number
        except ValueError:
            return "not a valid URL"
        if parts.scheme not in ("http", "https"):
            return "must be an http(s) URL"
        if not host:
            return "has no host"
        if parts.query or parts.fragment or "?" in url or "#" in url:
            return "may not have a query or a fragment ('?', '#'): the agent's paths are the agent card's"
        if self.allow_private:
            return None
        address = literal_address(host)
        if host.rstrip(".").lower() == "localhost" or host.rstrip(".").lower().endswith(".localhost"):
            return "is not a public address (this green agent calls public addresses only)"
        if address is not None and not is_public(address):
            return "is not a public address (this green agent calls public addresses only)"
        return None

    def refused(self, addresses: Iterable[str]) -> str | None:
        """The first of ``addresses`` (resolved, numeric) that is not public, or ``None``."""
        if self.allow_private:
            return None
        for text in addresses:
            address = ipaddress.ip_address(text.split("%", 1)[0])
            if not is_public(address):
                return text
        return None


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, connecting only to addresses :class:`AddressPolicy` allows.

    The host is resolved here, each address checked, and the connection made to a checked address
    (TLS still verifies the name: httpcore passes the URL's host as SNI and for the certificate check).
    """

    def __init__(self, policy: AddressPolicy, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.policy = policy
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            log.warning("participant host %r did not resolve: %s", host, exc)
            raise httpcore.ConnectError(REFUSED) from None
        addresses = [str(info[4][0]) for info in infos]
        bad = self.policy.refused(addresses)
        if bad is not None or not addresses:
            log.warning("participant host %r refused: it resolves to %s, not a public address", host, bad)
            raise httpcore.ConnectError(REFUSED)
        return await self.inner.connect_tcp(
            addresses[0], port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError(REFUSED)

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def guard_pool(pool: object, policy: AddressPolicy | None) -> None:
    """Make ``pool`` (the pool an ``httpx.AsyncHTTPTransport`` built) connect through
    :class:`GuardedBackend`; no policy, or one that allows private addresses, leaves it as it is."""
    if policy is None or policy.allow_private:
        return
    if not isinstance(pool, httpcore.AsyncConnectionPool):
        raise TypeError(f"cannot guard the connections of {type(pool).__name__}")
    pool._network_backend = GuardedBackend(policy)
