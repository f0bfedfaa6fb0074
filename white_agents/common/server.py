"""The ``main`` every LLM white agent shares: flags, settings check, litellm warm-up, serving."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Mapping, Sequence

from a2a.types import AgentSkill
from starlette.types import ASGIApp

from green_agent.kit import cli_args
from green_agent.kit.server.serving import (
    add_server_args,
    agent_card,
    build_app,
    card_url_from_args,
    serve_command,
)
from green_agent.llm.keys import key_problem
from white_agents.common.executor import FolioAgent, FolioAgentExecutor
from white_agents.common.llm import ConfigError, LLMSettings, add_llm_args, settings_from_args
from white_agents.common.runtime import llm_extension
from white_agents.common.startup import (
    card_after_import,
    endpoint_problem,
    quiet_library_logs,
    start_litellm_import,
)

log = logging.getLogger(__name__)


def create_agent_app(
    agent: FolioAgent, url: str, *, description: str, skills: Sequence[AgentSkill]
) -> ASGIApp:
    """The ASGI app serving ``agent`` with a card advertising ``url``."""
    card = agent_card(name=agent.name, description=description, url=url, skills=skills)
    runtime = getattr(agent, "runtime", None)
    if runtime is not None:
        card.capabilities.extensions.append(llm_extension(runtime))
    return build_app(FolioAgentExecutor(agent), card)


def missing_credentials(settings: LLMSettings, env: Mapping[str, str] | None = None) -> str | None:
    """Why the model cannot be called under the key rule (:mod:`green_agent.llm.keys`), or None
    (a replay calls no model: it needs no key)."""
    if settings.replay_dir:
        return None
    return key_problem(settings.model, settings.api_base, settings.api_key, env)


def run_llm_agent(
    argv: Sequence[str] | None,
    *,
    prog: str,
    description: str,
    default_port: int,
    add_args: Callable[[argparse.ArgumentParser], None] | None = None,
    make_app: Callable[[argparse.Namespace, LLMSettings, str], ASGIApp],
) -> int:
    """Parse flags, check the LLM settings (exit 2 with one line if unusable), serve; the card waits
    for litellm's import, within ``--card-wait`` (:mod:`white_agents.common.startup`)."""
    parser = cli_args.ArgumentParser(prog=prog, description=description)
    add_server_args(parser, default_port=default_port)
    add_llm_args(parser)
    if add_args is not None:
        add_args(parser)
    args = parser.parse_args(argv)
    try:
        settings = settings_from_args(args)
        app = make_app(args, settings, card_url_from_args(args))
    except ConfigError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    return serve_llm_app(prog, app, args, settings)


def serve_llm_app(prog: str, app: ASGIApp, args: argparse.Namespace, settings: LLMSettings) -> int:
    """Check the key (and, with ``--check-endpoint``, the endpoint: exit 2 with one line), quiet
    library logs, import litellm from now on and serve, the card once the import is done (or
    ``--card-wait`` seconds have passed)."""
    problem = missing_credentials(settings)
    if problem is None and args.check_endpoint and not settings.replay_dir:
        problem = asyncio.run(endpoint_problem(settings))
    if problem:
        print(f"{prog}: error: {problem}", file=sys.stderr)
        return 2
    quiet_library_logs(args.log_level)
    imported = start_litellm_import()  # before the server starts: its start-up overlaps the import
    log.info("%s serving on %s:%d with model %s", prog, args.host, args.port, settings.model)
    return serve_command(
        card_after_import(app, imported, args.card_wait),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
    )
