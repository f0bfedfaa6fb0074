"""Who may see a task: tasks belong to whoever started them.

Three modes, chosen at start-up (:class:`Tenancy`):

- **open** (bound to loopback, no tokens): the local harness; any caller may list, get, cancel
  and resubscribe to any task, as before.
- **capability** (public, no tokens): a task's id, a random UUID the server picks, is the only way
  to it. ``ListTasks`` is refused, so nothing hands an id to anyone but the client that started it.
- **principals** (``--auth-tokens-file``): every call but the card's needs ``Authorization: Bearer
  <token>``; each token names one principal, and a task is visible only to the principal that
  started it and to the operator (``--operator``), who alone may list. A foreign task answers
  exactly as an unknown one (``TaskNotFound``), so ids cannot be probed.

Journals follow the same lines: with principals, each principal resumes only its own (the principal
is part of the journal key); in capability mode a request may not resume at all (:attr:`Tenancy.resumable`).

Identity travels the way a2a-sdk expects it: Starlette's ``AuthenticationMiddleware`` sets
``request.user``, and the SDK's context builder turns it into ``ServerCallContext.user``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import stat
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import cast

from a2a.server.context import ServerCallContext
from a2a.server.events import Event
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.server.tasks import TaskStore
from a2a.types import AgentCard, ListTasksRequest, ListTasksResponse, Message, SendMessageRequest, Task
from a2a.utils.errors import UnsupportedOperationError
from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    BaseUser,
    SimpleUser,
)
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response

from green_agent.kit.errors import DataError
from green_agent.kit.server.task_messages import (
    TaskMessages,
)

MIN_TOKEN_CHARS = 16
"""Shortest token accepted: a guessable token would make every task guessable."""
PRINCIPAL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
TOKEN = re.compile(r"[\x21-\x7e]+")
SCHEME = "bearer"
"""Name of the security scheme in the agent card."""


class TokenFileError(DataError):
    """The tokens file is unusable; the message is one line and never quotes a token."""


@dataclass(frozen=True)
class TokenTable:
    """Principals by the SHA-256 of their tokens (the tokens themselves are not kept)."""

    digests: tuple[tuple[bytes, str], ...]

    @property
    def principals(self) -> frozenset[str]:
        return frozenset(name for _, name in self.digests)

    def principal_for(self, token: str) -> str | None:
        """The principal holding ``token``; compares against every entry (no early exit)."""
        digest = hashlib.sha256(token.encode()).digest()
        found = None
        for known, name in self.digests:
            if hmac.compare_digest(known, digest):
                found = name
        return found


def load_tokens(path: Path) -> TokenTable:
    """Read ``principal:token`` lines (``#`` comments and blank lines allowed).

    Refused, with a one-line :class:`TokenFileError`: a file others may read or anyone but its
    owner may write, a malformed line, a principal name outside ``[A-Za-z0-9._@-]``, a token
    shorter than :data:`MIN_TOKEN_CHARS` or with spaces, a token given twice, an empty file.
    """
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise TokenFileError(f"cannot read tokens file {str(path)!r} ({reason})") from None
    if mode & (stat.S_IRWXO | stat.S_IWGRP):
        raise TokenFileError(
            f"tokens file {str(path)!r} is readable or writable by others (mode {stat.filemode(mode)}); "
            "chmod 600 it (or 640 for a group)"
        )
    entries: dict[bytes, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, token = line.partition(":")
        where = f"tokens file {str(path)!r} line {number}"
        if not sep or not PRINCIPAL.fullmatch(name):
            raise TokenFileError(f"{where}: expected 'principal:token', principal of [A-Za-z0-9._@-]")
        if not TOKEN.fullmatch(token) or len(token) < MIN_TOKEN_CHARS:
            raise TokenFileError(
                f"{where}: the token must be at least {MIN_TOKEN_CHARS} printable characters, no spaces"
            )
        digest = hashlib.sha256(token.encode()).digest()
        if digest in entries:
            raise TokenFileError(f"{where}: this token is already given to {entries[digest]!r}")
        entries[digest] = name
    if not entries:
        raise TokenFileError(f"tokens file {str(path)!r} names no principal")
    return TokenTable(tuple(entries.items()))


@dataclass(frozen=True)
class Tenancy:
    """Which callers may reach which tasks (see the module docstring for the three modes)."""

    public: bool
    """Reachable from other machines (a non-loopback bind, or ``--public``)."""
    tokens: TokenTable | None = None
    """Bearer tokens, when the operator gave a tokens file."""
    operator: str | None = None
    """The principal that may list every task (and see any)."""

    @property
    def open(self) -> bool:
        """The local harness's mode: everyone sees everything, as before tenancy."""
        return not self.public and self.tokens is None

    @property
    def resumable(self) -> bool:
        """Whether a request may continue a journal: not in capability mode, where nothing but the
        request itself (participants and config, often public) would tie a journal to its client."""
        return not self.public or self.tokens is not None

    @staticmethod
    def principal(context: ServerCallContext) -> str:
        """The caller's principal ('' when anonymous)."""
        return context.user.user_name if context.user.is_authenticated else ""

    def client(self, context: ServerCallContext) -> str | None:
        """Whose share of the agent a call counts against: its principal with tokens, its address in
        capability mode (:data:`CLIENT_ADDRESS` of the call's state), ``None`` in open mode (the
        local harness: only the global limits)."""
        if self.tokens is not None:
            return "principal:" + self.principal(context)
        if self.public:
            return "address:" + str(context.state.get(CLIENT_ADDRESS, ""))
        return None

    def may_list(self, context: ServerCallContext) -> bool:
        return self.open or (self.operator is not None and self.principal(context) == self.operator)

    def may_see(self, owner: str, context: ServerCallContext) -> bool:
        """Whether the caller may get, cancel or follow a task started by ``owner``."""
        if self.tokens is None:  # open, or capability: whoever holds the id
            return True
        caller = self.principal(context)
        return bool(caller) and (caller == owner or caller == self.operator)


class BearerAuth(AuthenticationBackend):
    """Starlette authentication: a valid bearer token names the principal; GETs (the card) need none."""

    def __init__(self, tokens: TokenTable) -> None:
        self._tokens = tokens

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        if conn.scope["type"] != "http" or conn.scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return None
        scheme, _, token = conn.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthenticationError("this agent needs 'Authorization: Bearer <token>' (see its card)")
        principal = self._tokens.principal_for(token.strip())
        if principal is None:
            raise AuthenticationError("the bearer token is not valid")
        return AuthCredentials(["authenticated"]), SimpleUser(principal)


def refuse_unauthenticated(conn: HTTPConnection, exc: Exception) -> Response:
    """HTTP 401 with a JSON-RPC error body and the ``WWW-Authenticate`` challenge."""
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": f"unauthenticated: {exc}"}}
    return JSONResponse(body, status_code=401, headers={"WWW-Authenticate": 'Bearer realm="a2a"'})


CLIENT_ADDRESS = "client_address"
"""Key of the call state holding the client's IP address (what a client's share is counted by in
capability mode)."""


class TenantContextBuilder(DefaultServerCallContextBuilder):
    """The SDK's context builder, minus the credentials it would copy into the call's state, plus the
    client's address."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state[CLIENT_ADDRESS] = request.client.host if request.client else ""
        headers = context.state.get("headers")
        if isinstance(headers, dict):
            for name in ("authorization", "proxy-authorization", "cookie"):
                headers.pop(name, None)
        return context


class TenantRequestHandler(DefaultRequestHandler):
    """The SDK's request handler, with ``ListTasks`` kept for those :meth:`Tenancy.may_list` allows,
    and the messages waiting for one task bounded (:class:`TaskMessages`)."""

    def __init__(
        self, *args: object, tenancy: Tenancy, task_messages: TaskMessages | None = None, **kwargs: object
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._tenancy = tenancy
        self._task_messages = task_messages or TaskMessages()

    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Message | Task:
        await self._task_messages.admit(params, partial(self._lookup, context))
        result: Message | Task = await super().on_message_send(params, context)
        return result

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Event, None]:
        await self._task_messages.admit(params, partial(self._lookup, context))
        async for event in super().on_message_send_stream(params, context):
            yield event

    async def _lookup(self, context: ServerCallContext, task_id: str) -> Task | None:
        """The task as the caller may see it (our store is a plain ``TaskStore``)."""
        store = cast("TaskStore", self.task_store)
        return await store.get(task_id, context)

    async def on_list_tasks(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        if not self._tenancy.may_list(context):
            raise UnsupportedOperationError(message="ListTasks is only for the operator of this agent")
        page: ListTasksResponse = await super().on_list_tasks(params, context)
        return page


def declare_bearer(card: AgentCard) -> None:
    """Declare the bearer scheme in ``card`` (``securitySchemes`` and a security requirement)."""
    scheme = card.security_schemes[SCHEME].http_auth_security_scheme
    scheme.scheme = "Bearer"
    scheme.description = "A token the operator of this agent issued; tasks are visible to their starter only."
    card.security_requirements.add().schemes[SCHEME].SetInParent()
