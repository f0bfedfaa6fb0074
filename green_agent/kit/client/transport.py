"""All outbound A2A calls: the :class:`~green_agent.kit.client.messages.Transport` the assessors use.

It resolves each participant's card once, picks streaming or not from the card, folds the reply
stream (Task, status and artifact updates, or a plain Message) into one :class:`Reply`, caps the
bytes read, and maps every failure to a :class:`TransportError` with a kind (docs/architecture.md, Failures).
Time budgets are the caller's job (``asyncio.timeout`` around :meth:`A2ATransport.send`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from http.cookiejar import Cookie, CookieJar
from typing import Any

import httpx
from a2a.client import A2ACardResolver, Client, ClientConfig, ClientFactory
from a2a.client.errors import A2AClientError, AgentCardResolutionError
from a2a.types import AgentCard, CancelTaskRequest, SendMessageRequest, StreamResponse
from a2a.utils.errors import A2AError
from google.protobuf.json_format import MessageToDict

from green_agent.kit.causes import cause_chain
from green_agent.kit.client.address_policy import AddressPolicy
from green_agent.kit.client.bounded_http import (
    ResponseTooLarge,
    SchemeTransport,
    UnsupportedEncoding,
    byte_budget,
)
from green_agent.kit.client.cancel import note_task_id
from green_agent.kit.client.messages import OutboundMessage, Reply, TransportError, TransportErrorKind
from green_agent.kit.client.origin import same_origin_card
from green_agent.kit.client.participant_auth import UserinfoAuth
from green_agent.kit.client.task_fold import TaskFold
from green_agent.kit.parts import user_message
from green_agent.kit.redact import redact_text, redact_url

log = logging.getLogger(__name__)

CARD_MAX_BYTES = 1 << 20
"""Largest agent card accepted (decoded)."""
CANCEL_REPLY_MAX_BYTES = 1 << 20
"""Largest reply to a ``CancelTask`` accepted (decoded): the canceled task with its evidence."""


class _NoCookies(CookieJar):
    """A cookie jar that keeps nothing: a participant's cookies are never sent back, so no call
    carries state from an earlier one; and httpx's jar no longer parses every reply's headers."""

    def extract_cookies(self, response: Any, request: Any) -> None:
        return None

    def set_cookie(self, cookie: Cookie) -> None:
        return None


def _http_client(auth: httpx.Auth | None = None, policy: AddressPolicy | None = None) -> httpx.AsyncClient:
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    return httpx.AsyncClient(
        auth=auth,
        transport=SchemeTransport(limits=limits, address_policy=policy),
        timeout=httpx.Timeout(connect=10.0, read=None, write=30.0, pool=None),
        limits=limits,
        cookies=_NoCookies(),
    )


def _classify(exc: BaseException) -> TransportError:
    """Map an SDK/httpx exception chain to a runtime-error kind (docs/architecture.md, Failures)."""
    for e in cause_chain(exc):
        if isinstance(e, ResponseTooLarge):
            return TransportError("response_too_large", str(e))
        if isinstance(e, UnsupportedEncoding):
            return TransportError("invalid_response", str(e))
        if isinstance(e, httpx.ConnectError):
            return TransportError("connection_refused", str(e) or "connection refused", retryable=True)
        if isinstance(e, httpx.HTTPStatusError):
            code = e.response.status_code
            return TransportError("http_status", f"HTTP {code}", retryable=code >= 500 or code == 429)
        if isinstance(e, httpx.TimeoutException):
            return TransportError("transport_timeout", str(e) or "transport timeout", retryable=True)
        if isinstance(e, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
            return TransportError("connection_lost", str(e) or type(e).__name__, retryable=True)
    text = str(exc) or type(exc).__name__
    if isinstance(exc, AgentCardResolutionError):
        return TransportError("card_unavailable", text, retryable=True)
    if isinstance(exc, A2AClientError):
        if "HTTP Error" in text:
            return TransportError(
                "http_status",
                text,
                retryable=any(f" {c}" in text for c in ("500", "502", "503", "504", "429")),
            )
        return TransportError("invalid_response", text)
    if isinstance(exc, A2AError):
        return TransportError("jsonrpc_error", f"{type(exc).__name__}: {text}")
    if isinstance(exc, (json.JSONDecodeError, ValueError, KeyError, TypeError, AttributeError)):
        return TransportError("invalid_response", f"{type(exc).__name__}: {text}")
    return TransportError("invalid_response", f"{type(exc).__name__}: {text}")


def reply_of(fold: TaskFold) -> Reply:
    """The :class:`Reply` of a finished fold; a failed, rejected or canceled task is a ``TransportError``."""
    if not fold.done:
        raise TransportError("invalid_response", "the stream ended without a terminal task state or message")
    texts = fold.texts() or ([fold.status_text] if fold.status_text else [])
    data = _objects(fold.data() + fold.final_data)
    if fold.state in ("failed", "rejected", "canceled", "auth_required"):
        detail = (fold.status_text or "\n".join(fold.texts()))[:500]
        kind: TransportErrorKind = "task_rejected" if fold.state == "rejected" else "task_failed"
        raise TransportError(
            kind, f"task {fold.state}" + (f": {detail}" if detail else ""), raw=detail, data=data
        )
    return Reply(
        text="\n".join(texts),
        data=data,
        state=fold.state or "",
        context_id=fold.context_id,
        task_id=fold.task_id,
        size_bytes=fold.size,
    )


def _objects(values: list[Any]) -> list[dict[str, Any]]:
    """Data values as the assessors read them: objects as they are, any other value under ``value``."""
    return [value if isinstance(value, dict) else {"value": value} for value in values]


class A2ATransport:
    """One shared HTTP client; cards resolved, and a2a clients built, once per URL for the transport's life."""

    def __init__(
        self,
        *,
        card_timeout_s: float = 30.0,
        call_slots: asyncio.Semaphore | None = None,
        address_policy: AddressPolicy | None = None,
        quiet_card_errors: bool = False,
    ) -> None:
        self._auth = UserinfoAuth()
        """Each participant URL's user-info, sent as Basic credentials on every call to its origin."""
        self._http = _http_client(self._auth, address_policy)
        self._quiet = quiet_card_errors
        """A card that does not load says only that (a public agent: no port or status oracle)."""
        self.call_slots = call_slots
        """Process-wide bound on calls in flight, honoured by :func:`green_agent.kit.client.calls.call_participant`."""
        self._cards: dict[str, AgentCard] = {}
        self._clients: dict[tuple[str, bool], Client] = {}
        self._card_locks: dict[str, asyncio.Lock] = {}
        self._refused: dict[str, TransportError] = {}
        self._card_timeout_s = card_timeout_s

    async def __aenter__(self) -> A2ATransport:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def card(self, url: str) -> dict[str, Any]:
        """The participant's card as JSON (:meth:`agent_card` as a dict)."""
        return dict(MessageToDict(await self.agent_card(url)))

    async def agent_card(self, url: str) -> AgentCard:
        """The participant's card (cached), restricted to ``url``'s origin.

        Raises ``TransportError``: ``card_unavailable`` (retryable), ``response_too_large`` or
        ``card_origin_mismatch`` (the card names only interfaces on another origin).
        """
        if url in self._cards:
            return self._cards[url]
        self._auth.remember(url)
        if url in self._refused:
            raise self._refused[url]
        lock = self._card_locks.setdefault(url, asyncio.Lock())
        async with lock:
            if url not in self._cards and url not in self._refused:
                token = byte_budget.set(CARD_MAX_BYTES)
                try:
                    resolver = A2ACardResolver(self._http, url.rstrip("/"))
                    card = await asyncio.wait_for(resolver.get_agent_card(), self._card_timeout_s)
                except Exception as exc:
                    raise self._card_error(url, exc) from exc
                finally:
                    byte_budget.reset(token)
                try:
                    self._cards[url] = same_origin_card(card, url)
                except TransportError as exc:
                    self._refused[url] = exc
        if url in self._refused:
            raise self._refused[url]
        return self._cards[url]

    def _card_error(self, url: str, exc: Exception) -> TransportError:
        """Why ``url``'s card did not load; for a public agent only that it did not (no port or
        status oracle for the requester), the cause in the operator's log."""
        err = _classify(exc)
        where = f"agent card at {redact_url(url)}"
        if self._quiet:
            log.warning("%s did not load: %s: %s", where, err.kind, redact_text(err.detail))
            return TransportError("card_unavailable", f"{where} did not load", retryable=True)
        if err.kind == "response_too_large":
            return TransportError(err.kind, f"{where}: {err.detail}")
        return TransportError(
            "card_unavailable", f"{where} did not load ({redact_text(err.detail)})", retryable=True
        )

    def _client(self, url: str, card: AgentCard, *, streaming: bool) -> Client:
        """The a2a client for ``url``, built once (a client per call cost CPU on every item).

        An a2a client keeps no state between calls, so concurrent calls share it.
        """
        key = (url, streaming)
        client = self._clients.get(key)
        if client is None:
            config = ClientConfig(streaming=streaming, httpx_client=self._http)
            client = self._clients[key] = ClientFactory(config).create(card)
        return client

    async def send(self, url: str, message: OutboundMessage, *, max_response_bytes: int) -> Reply:
        card = await self.agent_card(url)
        client = self._client(url, card, streaming=bool(card.capabilities.streaming))
        token = byte_budget.set(max_response_bytes)
        fold = TaskFold()
        try:
            request = SendMessageRequest()
            user_message(message.text, message.data, message.context_id, into=request.message)
            async for event in client.send_message(request):
                fold.add(event)
                note_task_id(fold.task_id)
                if fold.size > max_response_bytes:
                    raise TransportError("response_too_large", f"reply exceeds {max_response_bytes} bytes")
        except TransportError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise _classify(exc) from exc
        finally:
            byte_budget.reset(token)
        return reply_of(fold)

    async def cancel(self, url: str, task_id: str) -> list[dict[str, Any]]:
        """A2A ``CancelTask`` for a task the assessor gave up on; the data parts of its final status."""
        client = self._client(url, await self.agent_card(url), streaming=False)
        token = byte_budget.set(CANCEL_REPLY_MAX_BYTES)
        try:
            task = await client.cancel_task(CancelTaskRequest(id=task_id))
        except Exception as exc:
            raise _classify(exc) from exc
        finally:
            byte_budget.reset(token)
        fold = TaskFold()
        fold.add(StreamResponse(task=task))
        return _objects(fold.data() + fold.final_data)
