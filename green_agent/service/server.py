"""``python -m green_agent``: the assessor agent's CLI and A2A app.

The assessor is a plugin chosen with ``--assessor``: the name of an installed plugin (the registry,
:mod:`green_agent.core.registry`) or a ``package.module:factory`` path, so a new benchmark plugs in
without touching this file.
"""

from __future__ import annotations

import argparse
import importlib
import ipaddress
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from starlette.types import ASGIApp

from green_agent.core.contract import Assessor, AssessorContext, AssessorFactory
from green_agent.core.registry import plugin_named, plugins
from green_agent.kit import cli_args
from green_agent.kit.cli_args import positive_int, positive_seconds
from green_agent.kit.client.address_policy import AddressPolicy
from green_agent.kit.errors import InputError
from green_agent.kit.server.connection_limits import ConnectionLimits
from green_agent.kit.server.intake import IntakeContextBuilder
from green_agent.kit.server.limits import ServerLimits
from green_agent.kit.server.serving import (
    add_server_args,
    agent_card,
    build_app,
    card_url_from_args,
    serve_command,
    skill,
)
from green_agent.kit.server.task_messages import TaskMessages
from green_agent.kit.server.tenancy import Tenancy, TokenFileError, load_tokens
from green_agent.service.admission import Admitting
from green_agent.service.ceilings import Ceilings, add_ceiling_args, ceilings_from_args
from green_agent.service.executor import AssessmentExecutor


class PluginError(InputError):
    """The ``--assessor`` value does not name a loadable plugin."""


def load_assessor(spec: str, context: AssessorContext) -> Assessor[Any]:
    """Resolve an installed plugin's name or a ``module:factory`` path and build the assessor."""
    plugin = plugin_named(spec)
    if plugin is not None:
        return plugin.factory(context)
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise PluginError(f"unknown assessor {spec!r}: use one of {_known()} or 'module:factory'")
    try:
        factory: AssessorFactory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise PluginError(f"cannot load assessor {spec!r}: {exc}") from None
    return factory(context)


def _known() -> str:
    """The installed plugins' names, for messages (and a hint when there are none)."""
    names = [p.name for p in plugins()]
    return ", ".join(names) if names else "(no plugin installed: pip install -e . registers the built-ins)"


def unwritable_run_dir(run_dir: Path) -> str | None:
    """Why journals cannot be written under ``run_dir`` (one line), or None.

    Checked at start-up so a non-root container with a read-only working directory fails at once
    with a clear message, not at the first finished item of an assessment.
    """
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=run_dir):
            pass
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        return (
            f"run directory {str(run_dir)!r} is not writable ({reason}); set --run-dir or AGENTBEATS_RUN_DIR"
        )
    return None


def create_app(
    assessor: Assessor[Any],
    card_url: str,
    limits: ServerLimits | None = None,
    *,
    private_errors: bool = False,
    tenancy: Tenancy | None = None,
    ceilings: Ceilings | None = None,
    address_policy: AddressPolicy | None = None,
) -> ASGIApp:
    """The green agent's A2A app for ``assessor``, advertising ``card_url``.

    ``private_errors`` (set with ``--manifest-only``) keeps unexpected errors' text, which may name
    host paths, out of the messages sent to clients. ``tenancy`` says who may reach which task
    (default: open, for the local harness). Every request's secrets are taken out at intake; its
    budgets are held to ``ceilings`` (default: :class:`Ceilings`' defaults). ``address_policy`` says
    which participant addresses may be called (default: any).
    """
    card = agent_card(
        name=f"agentified-assessment green agent ({assessor.name})",
        description=(
            'Assessor (green) agent: send {"participants": {role: url}, "config": {...}}; it assesses every '
            "participant over A2A with budgets, strict answer parsing and structured failures, and returns a "
            "'Result' artifact."
        ),
        url=card_url,
        skills=[
            skill(
                id=f"assess-{assessor.name}",
                name=f"Assess agents on {assessor.name}",
                description="Runs an AgentBeats assessment and returns per-participant scores.",
                tags=["assessment", "agentbeats", assessor.name],
                examples=['{"participants": {"agent": "http://127.0.0.1:9019"}, "config": {}}'],
            )
        ],
    )
    limits = limits or ServerLimits()
    admitted = Admitting(
        assessor, max_participants=limits.max_participants, max_items=limits.max_items, ceilings=ceilings
    )
    return build_app(
        AssessmentExecutor(
            admitted,
            limits=limits,
            private_errors=private_errors,
            tenancy=tenancy,
            address_policy=address_policy,
        ),
        card,
        max_task_bytes=limits.max_task_bytes,
        max_request_bytes=limits.max_request_bytes,
        tenancy=tenancy,
        request_context_builder=IntakeContextBuilder(),
        task_messages=TaskMessages(limits.max_task_messages, limits.max_task_message_bytes),
    )


def main(argv: list[str] | None = None) -> int:
    parser = cli_args.ArgumentParser(prog="python -m green_agent", description=__doc__.splitlines()[0])
    add_server_args(parser, default_port=9009)
    parser.add_argument(
        "--run-dir",
        type=Path,
        default=Path(os.environ.get("AGENTBEATS_RUN_DIR", "runs")),
        help="where per-assessment journals are kept for resume (default: $AGENTBEATS_RUN_DIR or ./runs)",
    )
    parser.add_argument(
        "--assessor",
        default=os.environ.get("GREEN_AGENT_ASSESSOR", "folio"),
        help=f"assessor plugin: {_known()} or module:factory (default: %(default)s)",
    )
    parser.add_argument(
        "--manifest-only",
        action="store_true",
        default=env_flag("GREEN_AGENT_MANIFEST_ONLY"),
        help="accept only datasets named in the manifest, never file paths or data dirs from a request "
        "(implied when --host is not a loopback address; env GREEN_AGENT_MANIFEST_ONLY=1)",
    )
    parser.add_argument(
        "--allow-host-paths",
        action="store_true",
        help="with a non-loopback --host, still accept dataset paths and data dirs from requests "
        "(only for a trusted network: a request can then make the agent read files as its user)",
    )
    parser.add_argument(
        "--allow-private-participants",
        action="store_true",
        default=env_flag("GREEN_AGENT_ALLOW_PRIVATE_PARTICIPANTS"),
        help="when public, still call participants at loopback, private and link-local addresses (a "
        "compose network, e.g. the AgentBeats gateway; env GREEN_AGENT_ALLOW_PRIVATE_PARTICIPANTS=1)",
    )
    add_tenancy_args(parser)
    add_limit_args(parser)
    add_ceiling_args(parser)
    add_connection_args(parser)
    args = parser.parse_args(argv)
    problem = unwritable_run_dir(args.run_dir)
    if problem:
        print(f"green_agent: error: {problem}", file=sys.stderr)
        return 2
    try:
        tenancy = tenancy_from_args(args)
    except TokenFileError as exc:
        print(f"green_agent: error: {exc}", file=sys.stderr)
        return 2
    manifest_only = args.manifest_only or (tenancy.public and not args.allow_host_paths)
    try:
        context = AssessorContext(run_dir=args.run_dir, manifest_only=manifest_only)
        assessor = load_assessor(args.assessor, context)
    except PluginError as exc:
        print(f"green_agent: error: {exc}", file=sys.stderr)
        return 2
    why_public = "--public" if is_loopback(args.host) else f"bound to {args.host}"
    if manifest_only and not args.manifest_only:
        print(
            f"green_agent: {why_public}, so only manifest datasets are accepted "
            "(--allow-host-paths to accept paths from requests)",
            file=sys.stderr,
        )
    if tenancy.public and tenancy.tokens is None:
        print(
            f"green_agent: {why_public} without --auth-tokens-file: ListTasks is refused and a task's id "
            "is the only way to it",
            file=sys.stderr,
        )
    return serve_command(
        create_app(
            assessor,
            card_url_from_args(args),
            limits_from_args(args),
            private_errors=manifest_only,
            tenancy=tenancy,
            ceilings=ceilings_from_args(args),
            address_policy=AddressPolicy(allow_private=not tenancy.public or args.allow_private_participants),
        ),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        connections=connection_limits_from_args(args),
    )


def env_flag(name: str) -> bool:
    """Whether the environment turns on the flag ``name`` (set, and neither empty nor ``0``)."""
    return os.environ.get(name, "") not in ("", "0")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the agent reachable from this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def add_tenancy_args(parser: argparse.ArgumentParser) -> None:
    """Flags for :class:`~green_agent.kit.server.tenancy.Tenancy` (docs/hosting.md, Tenancy)."""
    parser.add_argument(
        "--public",
        action="store_true",
        default=env_flag("GREEN_AGENT_PUBLIC"),
        help="treat the agent as public although bound to loopback (behind a reverse proxy on this host); "
        "implied by a non-loopback --host (env GREEN_AGENT_PUBLIC=1)",
    )
    parser.add_argument(
        "--auth-tokens-file",
        type=Path,
        default=os.environ.get("GREEN_AGENT_AUTH_TOKENS_FILE") or None,
        metavar="FILE",
        help="'principal:token' lines: every call then needs 'Authorization: Bearer <token>', and a task "
        "is visible only to its starter (env GREEN_AGENT_AUTH_TOKENS_FILE)",
    )
    parser.add_argument(
        "--operator",
        default=os.environ.get("GREEN_AGENT_OPERATOR") or None,
        metavar="PRINCIPAL",
        help="the principal of --auth-tokens-file that may list and reach every task (env GREEN_AGENT_OPERATOR)",
    )


def tenancy_from_args(args: argparse.Namespace) -> Tenancy:
    """The :class:`Tenancy` the flags ask for; :class:`TokenFileError` (one line) when they do not fit."""
    public = bool(args.public) or not is_loopback(args.host)
    if args.auth_tokens_file is None:
        if args.operator:
            raise TokenFileError("--operator names a principal of --auth-tokens-file, which is not given")
        return Tenancy(public=public)
    tokens = load_tokens(args.auth_tokens_file)
    if args.operator and args.operator not in tokens.principals:
        raise TokenFileError(
            f"--operator {args.operator!r} is not a principal of {str(args.auth_tokens_file)!r}"
        )
    return Tenancy(public=public, tokens=tokens, operator=args.operator)


def add_limit_args(parser: argparse.ArgumentParser) -> None:
    """Flags for :class:`~green_agent.kit.server.limits.ServerLimits`."""
    defaults = ServerLimits()
    for flag, help_text in (
        ("--max-assessments", "assessments running at once"),
        ("--max-queued", "assessments waiting for a slot; one more is rejected as busy"),
        (
            "--max-assessments-per-client",
            "assessments of one client (principal; address when public without tokens) running at once",
        ),
        ("--max-queued-per-client", "assessments of one client waiting for a slot; one more is rejected"),
        ("--max-task-messages", "messages waiting for one task in progress; one more is refused"),
        ("--max-task-message-bytes", "bytes of the messages waiting for one task in progress"),
        ("--max-outbound", "calls to participants in flight at once, over all assessments"),
        ("--max-participants", "participants named in one request (more: rejected before any work)"),
        ("--max-items", "items x participants of one request (more: rejected before any card is fetched)"),
        ("--max-request-bytes", "largest request body accepted (HTTP 413 beyond, before parsing)"),
        ("--max-task-bytes", "serialized size of the A2A tasks kept in memory (oldest forgotten)"),
    ):
        dest = flag[2:].replace("-", "_")
        parser.add_argument(
            flag,
            type=positive_int,
            default=getattr(defaults, dest),
            metavar="N",
            help=f"{help_text} (default: %(default)s)",
        )


def add_connection_args(parser: argparse.ArgumentParser) -> None:
    """Flags for :class:`~green_agent.kit.server.connection_limits.ConnectionLimits`."""
    defaults = ConnectionLimits()
    parser.add_argument(
        "--read-timeout",
        type=positive_seconds,
        default=defaults.read_timeout_s,
        metavar="S",
        help="seconds a connection has to send a whole request once it is open or its last response "
        "is done; then it is closed (default: %(default)s)",
    )
    for flag, help_text in (
        ("--max-connections", "connections open at once, over all clients (more: 503 at accept)"),
        ("--max-connections-per-client", "connections open at once from one client address (more: 503)"),
    ):
        parser.add_argument(
            flag,
            type=positive_int,
            default=getattr(defaults, flag[2:].replace("-", "_")),
            metavar="N",
            help=f"{help_text} (default: %(default)s)",
        )


def connection_limits_from_args(args: argparse.Namespace) -> ConnectionLimits:
    return ConnectionLimits(
        read_timeout_s=args.read_timeout,
        max_connections=args.max_connections,
        max_connections_per_client=args.max_connections_per_client,
    )


def limits_from_args(args: argparse.Namespace) -> ServerLimits:
    return ServerLimits(
        max_assessments=args.max_assessments,
        max_queued=args.max_queued,
        max_assessments_per_client=args.max_assessments_per_client,
        max_queued_per_client=args.max_queued_per_client,
        max_task_messages=args.max_task_messages,
        max_task_message_bytes=args.max_task_message_bytes,
        max_outbound=args.max_outbound,
        max_participants=args.max_participants,
        max_items=args.max_items,
        max_request_bytes=args.max_request_bytes,
        max_task_bytes=args.max_task_bytes,
    )
