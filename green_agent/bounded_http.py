"""An httpx transport that caps each reply by its *decoded* size, decoding in small bounded steps.

httpx decompresses a whole network chunk at once, after any byte counting a wrapper of the raw
stream can do: a 300 KB gzip bomb becomes 300 MB in memory and stalls the event loop. Here the
transport decodes ``gzip``/``deflate`` itself, at most :data:`STEP_BYTES` of output per step, counts
the decoded bytes against the budget of the current call (a context variable, so one shared client
serves calls with different budgets) and hands httpx plain bytes. Any other content coding is
refused: we only ever ask for ``gzip, deflate`` (see :data:`ACCEPT_ENCODING`).
"""

from __future__ import annotations

import asyncio
import contextvars
import zlib
from collections.abc import AsyncIterator, Iterator

import httpx

ACCEPT_ENCODING = "gzip, deflate"
"""The only content codings we ask for (and decode)."""
STEP_BYTES = 64 * 1024
"""Largest decoded output of one decompression step; the event loop runs between steps."""

byte_budget: contextvars.ContextVar[int | None] = contextvars.ContextVar("http_byte_budget", default=None)
"""Decoded-byte budget of the current call; ``None`` = no cap."""


class ResponseTooLarge(httpx.TransportError):
    """The decoded reply exceeded its budget (raised while reading, before it is all in memory)."""


class UnsupportedEncoding(httpx.TransportError):
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


class BoundedTransport(httpx.AsyncHTTPTransport):
    """Decodes replies itself under the current :data:`byte_budget`, in bounded steps."""

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
