"""A participant URL's user-info is its HTTP Basic credentials, sent on every call to that agent.

``http://alice:TOKEN@host/`` names the credentials of the agent at ``host``; httpx would apply them
to the card request only, since the calls go to the URL the *card* names, which has no user-info.
:class:`UserinfoAuth` remembers each participant URL's credentials and adds ``Authorization: Basic
…`` to every request on that URL's origin (scheme, host, port): the only origin the green agent
follows from that card (:mod:`green_agent.kit.client.origin`). When several participants share an origin,
the one whose URL path is the longest prefix of the request's path wins.
"""

from __future__ import annotations

import base64
from collections.abc import Generator
from urllib.parse import unquote, urlsplit

import httpx

from green_agent.kit.client.origin import origin


class UserinfoAuth(httpx.Auth):
    """httpx auth adding the Basic credentials of the participant whose origin a request goes to."""

    def __init__(self) -> None:
        self._by_origin: dict[tuple[str, str, int | None], list[tuple[str, str]]] = {}

    def remember(self, url: str) -> None:
        """Note ``url``'s user-info, if it has any, for the requests to its origin."""
        parts = urlsplit(url)
        if parts.username is None:
            return
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        header = "Basic " + base64.b64encode(pair).decode("ascii")
        entries = self._by_origin.setdefault(origin(url), [])
        entry = (parts.path.rstrip("/") + "/", header)
        if entry not in entries:
            entries.append(entry)
            entries.sort(key=lambda e: len(e[0]), reverse=True)

    def header_for(self, url: str) -> str | None:
        """The ``Authorization`` value for a request to ``url`` (None when no participant there has one)."""
        entries = self._by_origin.get(origin(url))
        if not entries:
            return None
        path = urlsplit(url).path.rstrip("/") + "/"
        return next((h for prefix, h in entries if path.startswith(prefix)), entries[-1][1])

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        header = None if "authorization" in request.headers else self.header_for(str(request.url))
        if header is not None:
            request.headers["Authorization"] = header
        yield request
