"""Serving any of our agents over A2A: the agent card, the Starlette app, the common CLI flags.

Every agent (green and white) is served the same way: a card listing two JSON-RPC interfaces at one
URL (protocol 1.0 and 0.3, so the 0.3-era AgentBeats gateway and purple agents interoperate), the
card routes, and JSON-RPC routes with v0.3 compatibility switched on. The CLI flags follow the
AgentBeats Docker contract: ``--host --port --card-url``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import sys
from collections import OrderedDict
from collections.abc import Sequence
from functools import partial
from typing import cast

from a2a.server.agent_execution import AgentExecutor, RequestContextBuilder
from a2a.server.context import ServerCallContext
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Task
from a2a.utils.errors import TaskNotFoundError
from starlette.applications import Starlette
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.types import ASGIApp

from green_agent import __version__
from green_agent.kit.cli_args import port
from green_agent.kit.redact import install_log_redaction
from green_agent.kit.server.agent_port import PORT_ENV, default_port_from_env
from green_agent.kit.server.connection_limits import (
    ConnectionGuard,
    ConnectionLimits,
    LoopSetup,
    ReadDeadline,
    fit_descriptor_limit,
    quiet_accept_errors,
)
from green_agent.kit.server.listener import PortError, StoppableServer, bind_listener
from green_agent.kit.server.request_limit import RequestSizeLimit
from green_agent.kit.server.task_messages import ENDED, CountingExecutor, TaskMessages
from green_agent.kit.server.tenancy import (
    BearerAuth,
    Tenancy,
    TenantContextBuilder,
    TenantRequestHandler,
    declare_bearer,
    refuse_unauthenticated,
)

DEFAULT_TASK_STORE_BYTES = 64 << 20
"""Default bound of the in-memory task store's serialized size (64 MiB)."""
PROTOCOL_VERSIONS = ("1.0", "0.3")
"""Both interfaces are listed at the same URL; the 1.x SDK answers both on one route."""


def agent_card(
    *,
    name: str,
    description: str,
    url: str,
    skills: Sequence[AgentSkill],
    version: str = __version__,
    streaming: bool = True,
) -> AgentCard:
    """A card advertising the 1.0 and 0.3 JSON-RPC interfaces at ``url``."""
    return AgentCard(
        name=name,
        description=description,
        version=version,
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version=v) for v in PROTOCOL_VERSIONS
        ],
        capabilities=AgentCapabilities(streaming=streaming),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=list(skills),
    )


def skill(
    id: str, name: str, description: str, tags: Sequence[str], examples: Sequence[str] = ()
) -> AgentSkill:
    """Shorthand for an :class:`AgentSkill` with text and JSON modes."""
    return AgentSkill(id=id, name=name, description=description, tags=list(tags), examples=list(examples))


def _one_namespace(context: ServerCallContext) -> str:
    """Every task in one namespace of the SDK's store: :class:`BoundedTaskStore` decides who sees what."""
    return ""


class BoundedTaskStore(InMemoryTaskStore):
    """An in-memory task store that forgets the oldest tasks beyond ``max_tasks`` or ``max_bytes``,
    and shows each task only to callers its ``tenancy`` lets see it.

    Each assessed item is a task on the participant's side, and every request is a task on the
    green agent's, so an agent serving long or repeated assessments would otherwise grow without
    bound. Tasks are evicted in order of creation; the newest task is always kept. A task's owner
    is the principal of the call that first saved it; to anyone else it does not exist.
    """

    def __init__(
        self,
        max_tasks: int = 10_000,
        max_bytes: int = DEFAULT_TASK_STORE_BYTES,
        *,
        tenancy: Tenancy | None = None,
        task_messages: TaskMessages | None = None,
    ) -> None:
        super().__init__(owner_resolver=_one_namespace)
        self._task_messages = task_messages or TaskMessages()
        self._max_tasks = max_tasks
        self._max_bytes = max_bytes
        self._tenancy = tenancy or Tenancy(public=False)
        self._owners: OrderedDict[str, str] = OrderedDict()
        self._sizes: dict[str, int] = {}
        self.total_bytes = 0
        """Serialized size of every task kept."""

    def _visible(self, task_id: str, context: ServerCallContext) -> bool:
        owner = self._owners.get(task_id)
        return owner is None or self._tenancy.may_see(owner, context)

    async def save(self, task: Task, context: ServerCallContext) -> None:
        if not self._visible(task.id, context):
            raise TaskNotFoundError
        await super().save(task, context)
        size = task.ByteSize()
        self.total_bytes += size - self._sizes.get(task.id, 0)
        self._sizes[task.id] = size
        if task.id not in self._owners:
            self._owners[task.id] = self._tenancy.principal(context)
        if task.status.state in ENDED:
            self._task_messages.forget(task.id)
        while len(self._owners) > 1 and (
            len(self._owners) > self._max_tasks or self.total_bytes > self._max_bytes
        ):
            await self._forget(next(iter(self._owners)))

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        return await super().get(task_id, context) if self._visible(task_id, context) else None

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        if self._visible(task_id, context):
            await self._forget(task_id)

    async def _forget(self, task_id: str) -> None:
        self._task_messages.forget(task_id)
        self._owners.pop(task_id, None)
        self.total_bytes -= self._sizes.pop(task_id, 0)
        await super().delete(task_id, ServerCallContext())


def build_app(
    executor: AgentExecutor,
    original_card: AgentCard,
    *,
    max_tasks: int = 10_000,
    max_task_bytes: int = DEFAULT_TASK_STORE_BYTES,
    max_request_bytes: int | None = None,
    tenancy: Tenancy | None = None,
    request_context_builder: RequestContextBuilder | None = None,
    task_messages: TaskMessages | None = None,
) -> ASGIApp:
    """The ASGI app: card routes plus JSON-RPC (1.0 with 0.3 compatibility) at ``/``.

    ``max_request_bytes`` refuses larger request bodies (HTTP 413) before anything parses them.
    ``tenancy`` decides who may list and reach which task (default: open, the local harness's
    mode); with tokens, every call but a GET needs a bearer token, and the card declares it.
    ``request_context_builder`` is a2a-sdk's hook run on each message before its task is stored.
    ``task_messages`` bounds the messages waiting for one task in progress (default: 4, 1 MiB).
    """
    tenancy = tenancy or Tenancy(public=False)
    card = original_card
    if tenancy.tokens is not None:
        card = AgentCard()
        card.CopyFrom(original_card)
        declare_bearer(card)
    task_messages = task_messages or TaskMessages()
    store = BoundedTaskStore(max_tasks, max_task_bytes, tenancy=tenancy, task_messages=task_messages)
    handler = TenantRequestHandler(
        agent_executor=CountingExecutor(executor, task_messages),
        task_store=store,
        agent_card=card,
        request_context_builder=request_context_builder,
        tenancy=tenancy,
        task_messages=task_messages,
    )
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(
        handler, rpc_url="/", context_builder=TenantContextBuilder(), enable_v0_3_compat=True
    )
    app: ASGIApp = Starlette(routes=routes)
    if tenancy.tokens is not None:
        app = AuthenticationMiddleware(
            app, backend=BearerAuth(tenancy.tokens), on_error=refuse_unauthenticated
        )
    return app if max_request_bytes is None else RequestSizeLimit(app, max_request_bytes)


def add_server_args(parser: argparse.ArgumentParser, *, default_port: int) -> None:
    """The AgentBeats Docker contract flags, shared by every agent CLI."""
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default: %(default)s)")
    parser.add_argument(
        "--port",
        type=port,
        default=default_port_from_env(default_port),
        help=f"port to bind (default: ${PORT_ENV} or {default_port})",
    )
    parser.add_argument(
        "--card-url",
        default=None,
        help="public URL written into the agent card (default: http://HOST:PORT/)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="logging verbosity (default: %(default)s)",
    )


def card_url_from_args(args: argparse.Namespace) -> str:
    """The URL to advertise: ``--card-url`` or one derived from host and port."""
    if args.card_url:
        return str(args.card_url)
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    return f"http://{host}:{args.port}/"


YOUNG_GC_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation (CPython's default: 700)."""


def settle_heap() -> None:
    """Tune the garbage collector for a long-running server, once start-up is done.

    What start-up built (modules, the plugin, its parser) lives as long as the process: frozen, it
    is no longer walked by each full collection. A server allocates many short-lived objects per
    request, nearly all freed by reference counting, so collecting the youngest generation every
    :data:`YOUNG_GC_THRESHOLD` allocations rather than 700 spares most collections that would
    find nothing. Measured on the green agent at concurrency 8: about 0.12 → 0.08 ms of collector
    CPU per assessed item.
    """
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_GC_THRESHOLD, middle, oldest)


CHATTY_LOGGERS = ("httpx", "httpcore", "openai", "a2a.client.card_resolver")
"""Libraries that log at INFO what an operator does not need: the HTTP clients one line per request
(every participant call, every LLM call), a2a-sdk every card it fetches, in full."""


def configure_logging(log_level: str) -> None:
    """Root logging at ``log_level`` with URL credentials masked; :data:`CHATTY_LOGGERS` show only
    warnings unless the level is ``debug`` (a 1,204-item run logged 1,204 "HTTP Request" lines, and
    each cost the call path a formatted, filtered and written record)."""
    level = getattr(logging, log_level.upper())
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(level if level <= logging.DEBUG else max(level, logging.WARNING))
    install_log_redaction()


KEEP_ALIVE_S = 5
"""Seconds an idle kept-alive connection stays open (uvicorn's ``timeout_keep_alive``)."""
MAX_HEAD_BYTES = 16 << 10
"""Largest request head read (h11's ``max_incomplete_event_size``; beyond: HTTP 400)."""
BACKLOG = 1024
"""Connections the kernel queues before they are accepted (uvicorn's ``backlog``)."""


def serve(
    app: ASGIApp,
    *,
    host: str,
    port: int,
    log_level: str = "info",
    connections: ConnectionLimits | None = None,
) -> None:
    """Run the app with uvicorn until a stop signal (after :func:`settle_heap`), behind the read
    deadline and the connection caps of :mod:`green_agent.kit.server.connection_limits`.

    The port is bound here first, so a port in use or a bad host raises :class:`PortError` (one line:
    ``error: port 9009 on 127.0.0.1 is already in use``) rather than uvicorn's log record; a command
    serves through :func:`serve_command`.
    """
    import uvicorn

    listener = bind_listener(host, port)
    settle_heap()
    configure_logging(log_level)
    limits = connections or ConnectionLimits()
    fit_descriptor_limit(limits, BACKLOG)
    guard = ConnectionGuard(limits)
    config = uvicorn.Config(
        LoopSetup(ReadDeadline(app), partial(quiet_accept_errors, guard.budget)),
        host=host,
        port=port,
        log_level="warning" if log_level == "info" else log_level,
        http=cast("type[asyncio.Protocol]", guard),
        timeout_keep_alive=KEEP_ALIVE_S,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        backlog=BACKLOG,
    )
    StoppableServer(config).serve_until_stopped(listener)


def serve_command(
    app: ASGIApp,
    *,
    host: str,
    port: int,
    log_level: str = "info",
    connections: ConnectionLimits | None = None,
) -> int:
    """:func:`serve` for an agent command's ``main``: its exit status, 0 after a stop, or 1 with the
    :class:`PortError`'s one line on stderr when the agent cannot listen where it was asked to."""
    try:
        serve(app, host=host, port=port, log_level=log_level, connections=connections)
    except PortError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0
