"""The ``main`` every LLM white agent shares: flags, settings check, litellm warm-up, serving."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence

from a2a.types import AgentSkill
from starlette.types import ASGIApp

from green_agent.kit.server.serving import add_server_args, agent_card, build_app, card_url_from_args, serve
from white_agents.common.executor import FolioAgent, FolioAgentExecutor
from white_agents.common.llm import ConfigError, LLMSettings, add_llm_args, settings_from_args
from white_agents.common.runtime import llm_extension
from white_agents.common.startup import endpoint_problem, import_litellm_when_serving, quiet_library_logs

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


PROVIDER_KEYS: dict[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY",),
}
"""Providers whose credentials are always an environment key (any one of these, as litellm reads
them), so a missing one is certainly an error. Checked without importing litellm."""


def missing_credentials(settings: LLMSettings, env: Mapping[str, str] | None = None) -> str | None:
    """Why the model cannot be called (its API key is not set), or None.

    Checked only for providers that always need a key, and only when neither ``--api-base`` nor
    ``LLM_API_KEY`` is given; other providers (Vertex, Bedrock, Ollama, ...) authenticate in ways
    this check cannot see.
    """
    env = os.environ if env is None else env
    keys = PROVIDER_KEYS.get(settings.model.split("/", 1)[0])
    if settings.api_base or settings.api_key or keys is None or any(env.get(k) for k in keys):
        return None
    return f"no API key for {settings.model}: set {' or '.join(keys)} (or pass --api-base for a local server)"


def run_llm_agent(
    argv: Sequence[str] | None,
    *,
    prog: str,
    description: str,
    default_port: int,
    add_args: Callable[[argparse.ArgumentParser], None] | None = None,
    make_app: Callable[[argparse.Namespace, LLMSettings, str], ASGIApp],
) -> int:
    """Parse flags, check the LLM settings (exit 2 with one line if unusable), serve; litellm is
    imported in the background once the card is being served (:mod:`white_agents.common.startup`)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
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
    library logs, serve the card at once and import litellm in the background."""
    problem = missing_credentials(settings)
    if problem is None and args.check_endpoint:
        problem = asyncio.run(endpoint_problem(settings))
    if problem:
        print(f"{prog}: error: {problem}", file=sys.stderr)
        return 2
    quiet_library_logs(args.log_level)
    import_litellm_when_serving(args.host, args.port)  # the card is served first, whatever this costs
    log.info("%s serving on %s:%d with model %s", prog, args.host, args.port, settings.model)
    serve(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0
