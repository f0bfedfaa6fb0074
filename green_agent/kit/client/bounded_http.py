"""An httpx transport that caps each reply by its *decoded* size, decoding in small bounded steps.

httpx decompresses a whole network chunk at once, after any byte counting a wrapper of the raw
stream can do: a 300 KB gzip bomb becomes 300 MB in memory and stalls the event loop. Here the
transport decodes ``gzip``/``deflate`` itself, at most :data:`STEP_BYTES` of output per step, counts
the decoded bytes against the budget of the current call (a context variable, so one shared client
serves calls with different budgets) and hands httpx plain bytes. Any other content coding is
refused: we only ever ask for ``gzip, deflate`` (see :data:`ACCEPT_ENCODING`).

Two costs of httpx's defaults that grow with the number of calls and connections are cut here:
each transport loaded the CA bundle into a fresh SSL context (~0.2 s of CPU per client; one
context now serves the process, built only once an ``https://`` participant is called, in a worker
thread: :class:`SchemeTransport`), and the connection pool's bookkeeping pass, quadratic in the
number of connections, is replaced by a linear one (:mod:`green_agent.kit.client.linear_pool`) on
the httpcore releases that pass was checked against; on any other, httpcore's own pass stays. That
is the only private part of httpcore we touch, behind that version check.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import os
import ssl
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from green_agent.kit.client.address_policy import AddressPolicy, guard_pool
from green_agent.kit.client.linear_pool import make_linear
from green_agent.kit.errors import AssessmentError

ACCEPT_ENCODING = "gzip, deflate"
"""The only content codings we ask for (and decode)."""
STEP_BYTES = 64 * 1024
"""Largest decoded output of one decompression step; the event loop runs between steps."""

byte_budget: contextvars.ContextVar[int | None] = contextvars.ContextVar("http_byte_budget", default=None)
"""Decoded-byte budget of the current call; ``None`` = no cap."""


class ResponseTooLarge(httpx.TransportError, AssessmentError):
    """The decoded reply exceeded its budget (raised while reading, before it is all in memory)."""


class UnsupportedEncoding(httpx.TransportError, AssessmentError):
    """The reply used a content coding we did not ask for."""


class _Inflater:
    """``gzip``/``deflate`` decoding with bounded output per step (multi-member gzip included)."""

    def __init__(self, encoding: str) -> None:
        self._wbits = zlib.MAX_WBITS | 16 if encoding == "gzip" else zlib.MAX_WBITS
        self._raw_deflate = encoding == "deflate"
        self._obj = zlib.decompressobj(self._wbits)
        self._first = True

    def feed(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                out = self._obj.decompress(data, STEP_BYTES)
            except zlib.error:
                if not (self._first and self._raw_deflate):
                    raise
                self._obj = zlib.decompressobj(-zlib.MAX_WBITS)  # deflate sent without its zlib header
                out = self._obj.decompress(data, STEP_BYTES)
            self._first = False
            data = self._obj.unconsumed_tail
            if self._obj.eof and self._obj.unused_data:
                data = self._obj.unused_data
                self._obj = zlib.decompressobj(self._wbits)
            if out:
                yield out


class _BoundedStream(httpx.AsyncByteStream):
    """The raw body, decoded when needed, raising :class:`ResponseTooLarge` past ``budget`` bytes."""

    def __init__(self, inner: httpx.AsyncByteStream, budget: int | None, encoding: str | None) -> None:
        self._inner = inner
        self._budget = budget
        self._inflater = _Inflater(encoding) if encoding else None

    def _count(self, chunk: bytes, seen: int) -> int:
        seen += len(chunk)
        if self._budget is not None and seen > self._budget:
            raise ResponseTooLarge(f"reply exceeds {self._budget} bytes once decoded")
        return seen

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            if self._inflater is None:
                seen = self._count(chunk, seen)
                yield chunk
                continue
            try:
                for piece in self._inflater.feed(chunk):
                    seen = self._count(piece, seen)
                    yield piece
                    await asyncio.sleep(0)  # let other calls run between bounded steps
            except zlib.error as exc:
                raise httpx.DecodingError(f"bad compressed reply: {exc}") from None

    async def aclose(self) -> None:
        await self._inner.aclose()


def _encoding(response: httpx.Response) -> str | None:
    codings = [c.strip().lower() for c in response.headers.get_list("content-encoding", split_commas=True)]
    codings = [c for c in codings if c and c != "identity"]
    if not codings:
        return None
    if len(codings) == 1 and codings[0] in ("gzip", "deflate"):
        return codings[0]
    raise UnsupportedEncoding(
        f"reply uses content coding {', '.join(codings)!r}; we asked for {ACCEPT_ENCODING}"
    )


@functools.cache
def _default_ssl_context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    """httpx's default verifying context, built once per CA location (loading the bundle is slow)."""
    if cafile or capath:
        return ssl.create_default_context(cafile=cafile, capath=capath)
    return httpx.create_ssl_context(trust_env=False)


def shared_ssl_context(trust_env: bool = True) -> ssl.SSLContext:
    """The context ``verify=True`` gives in httpx (``SSL_CERT_FILE``/``SSL_CERT_DIR`` honoured), shared."""
    cafile = os.environ.get("SSL_CERT_FILE") if trust_env else None
    capath = os.environ.get("SSL_CERT_DIR") if trust_env and not cafile else None
    return _default_ssl_context(cafile or None, capath or None)


class BoundedTransport(httpx.AsyncHTTPTransport):
    """Decodes replies itself under the current :data:`byte_budget`, in bounded steps.

    Takes :class:`httpx.AsyncHTTPTransport`'s arguments; ``verify=True`` (the default) uses the
    process's shared SSL context. ``address_policy`` restricts where it connects
    (:mod:`green_agent.kit.client.address_policy`).
    """

    def __init__(
        self,
        *,
        verify: ssl.SSLContext | bool = True,
        trust_env: bool = True,
        address_policy: AddressPolicy | None = None,
        **kwargs: Any,
    ) -> None:
        if verify is True and kwargs.get("cert") is None:
            verify = shared_ssl_context(trust_env)
        super().__init__(verify=verify, trust_env=trust_env, **kwargs)
        make_linear(getattr(self, "_pool", None))  # httpcore's bookkeeping grows with connections²
        guard_pool(getattr(self, "_pool", None), address_policy)  # public addresses only, if asked

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        response = await super().handle_async_request(request)
        try:
            encoding = _encoding(response)
        except UnsupportedEncoding:
            await response.aclose()
            raise
        if encoding:
            del response.headers["content-encoding"]  # decoded here, so httpx must not decode again
            response.headers.pop("content-length", None)
        response.stream = _BoundedStream(response.stream, byte_budget.get(), encoding)  # type: ignore[arg-type]
        return response


def _plain_context() -> ssl.SSLContext:
    """A verifying context with no CA loaded (instant to build): the ``http://`` pool never starts
    TLS, and should it ever, every certificate fails verification rather than passing unchecked."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


class SchemeTransport(httpx.AsyncBaseTransport):
    """``http://`` and ``https://`` on separate :class:`BoundedTransport` pools.

    The verifying SSL context (the CA bundle, slow to load) is built only when the first ``https://``
    request comes, and in a worker thread so the event loop keeps serving: an assessment of
    ``http://`` participants never loads it. Takes :class:`BoundedTransport`'s keyword arguments.
    """

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._plain = BoundedTransport(verify=_plain_context(), **kwargs)
        self._tls: BoundedTransport | None = None
        self._tls_lock = asyncio.Lock()

    async def _tls_transport(self) -> BoundedTransport:
        async with self._tls_lock:
            if self._tls is None:
                trust_env = bool(self._kwargs.get("trust_env", True))
                context = await asyncio.to_thread(shared_ssl_context, trust_env)
                self._tls = BoundedTransport(verify=context, **self._kwargs)
            return self._tls

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme == "https":
            return await (await self._tls_transport()).handle_async_request(request)
        return await self._plain.handle_async_request(request)

    async def aclose(self) -> None:
        await self._plain.aclose()
        if self._tls is not None:
            await self._tls.aclose()
