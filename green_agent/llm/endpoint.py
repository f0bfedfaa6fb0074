"""What went wrong talking to the model endpoint, said honestly and naming the endpoint.

litellm reports a refused connection as "InternalServerError 500"; the real cause is further down
the exception chain (``ConnectionRefusedError``, ``socket.gaierror``, ``ssl.SSLError``...). This
module walks that chain (:func:`green_agent.kit.client.transport.cause_chain`) and names the failure:
``refused``, ``dns``, ``tls``, ``timeout``, ``connection``, ``rate_limit``, ``auth``, ``http_status``
(with its code), ``malformed_reply`` (a 2xx answer whose body is no readable completion, such as a proxy's
HTML page: litellm reports it as a made-up 500; not retried, the same body would come back) or ``other``
(a request the endpoint could not use, e.g. a 400).
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from dataclasses import dataclass
from typing import Any

from green_agent.kit.causes import cause_chain

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
"""HTTP statuses worth another attempt."""
_CONNECTION_CLASS_NAMES = frozenset(
    {"APIConnectionError", "ConnectError", "ClientConnectorError", "ProtocolError"}
)
_MALFORMED_MARKERS = (
    "Empty or invalid response from LLM endpoint",
    "provider returned a response with no 'choices'",
)
"""litellm's words for a 2xx body that is no completion (it raises them with a made-up status 500)."""
_MALFORMED_CLASS_NAMES = frozenset({"APIResponseValidationError", "JSONDecodeError"})
_TIMEOUT_CLASS_NAMES = frozenset(
    {"Timeout", "APITimeoutError", "TimeoutException", "ReadTimeout", "ConnectTimeout"}
)


@dataclass(frozen=True)
class EndpointFailure:
    """One failed request to the model endpoint."""

    kind: str
    """``refused``, ``dns``, ``tls``, ``timeout``, ``connection``, ``rate_limit``, ``auth``,
    ``http_status``, ``malformed_reply`` or ``other``."""
    message: str
    """One line naming the endpoint and the cause."""
    retryable: bool
    """Worth another attempt with backoff (never a timeout: a model that hangs once hangs again)."""
    status: int | None = None
    """The HTTP status when the endpoint answered with one."""

    @property
    def endpoint_down(self) -> bool:
        """Counts towards the circuit breaker: the endpoint, not our request, is at fault."""
        return self.kind != "other"


def endpoint_name(model: str, api_base: str | None) -> str:
    """``api_base`` when set, else the provider's default endpoint."""
    if api_base:
        return api_base
    provider = model.split("/", 1)[0] if "/" in model else "default"
    return f"the {provider} provider's default endpoint"


def _status(exc: BaseException) -> int | None:
    response = getattr(exc, "response", None)
    code = getattr(response, "status_code", None) if response is not None else None
    code = code if isinstance(code, int) else getattr(exc, "status_code", None)
    return code if isinstance(code, int) else None


def _brief(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def _transport_cause(chain: list[BaseException], endpoint: str) -> EndpointFailure | None:
    for e in chain:
        if isinstance(e, ConnectionRefusedError):
            return EndpointFailure("refused", f"connection refused by {endpoint}", True)
        if isinstance(e, socket.gaierror):
            return EndpointFailure("dns", f"cannot resolve the host of {endpoint} ({_brief(e)})", False)
        if isinstance(e, ssl.SSLError):
            return EndpointFailure("tls", f"TLS handshake with {endpoint} failed ({_brief(e)})", False)
    for e in chain:
        if isinstance(e, (asyncio.TimeoutError, TimeoutError)) or type(e).__name__ in _TIMEOUT_CLASS_NAMES:
            return EndpointFailure("timeout", f"{endpoint} did not answer in time", False)
    for e in chain:
        if type(e).__name__ in _CONNECTION_CLASS_NAMES or isinstance(e, ConnectionError):
            return EndpointFailure(
                "connection", f"connection to {endpoint} failed ({_brief(chain[-1])})", True
            )
    return None


def classify_failure(exc: BaseException, endpoint: str, litellm: Any = None) -> EndpointFailure:
    """Name the cause of ``exc`` (a litellm/openai/httpx exception and its chain)."""
    chain = cause_chain(exc)
    found = _transport_cause(chain, endpoint)
    if found is not None:
        return found
    if any(
        type(e).__name__ in _MALFORMED_CLASS_NAMES or any(m in str(e) for m in _MALFORMED_MARKERS)
        for e in chain
    ):
        return EndpointFailure(
            "malformed_reply", f"{endpoint} answered with a body that is no completion: {_brief(exc)}", False
        )
    status = next((code for e in chain if (code := _status(e)) is not None), None)
    auth_error = litellm is not None and isinstance(exc, litellm.AuthenticationError)
    if auth_error or status in (401, 403) or "Missing credentials" in str(exc):
        return EndpointFailure("auth", f"{endpoint} refused the credentials: {_brief(exc)}", False, status)
    if status == 429:
        return EndpointFailure(
            "rate_limit", f"{endpoint} is rate limiting (HTTP 429): {_brief(exc)}", True, 429
        )
    if status is not None:
        retry = status in RETRYABLE_STATUS
        kind = "http_status" if retry or status >= 500 else "other"
        return EndpointFailure(kind, f"{endpoint} answered HTTP {status}: {_brief(exc)}", retry, status)
    return EndpointFailure("other", f"{type(exc).__name__} from {endpoint}: {_brief(exc)}", False)
