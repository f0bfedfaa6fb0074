"""The ``main`` every LLM white agent shares: flags, settings check, litellm warm-up, serving."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from a2a.types import AgentSkill
from starlette.applications import Starlette

from green_agent.serving import add_server_args, agent_card, build_app, card_url_from_args, serve
from white_agents.common.executor import FolioAgent, FolioAgentExecutor
from white_agents.common.llm import ConfigError, LLMSettings, add_llm_args, load_litellm, settings_from_args
from white_agents.common.runtime import llm_extension

log = logging.getLogger(__name__)


def create_agent_app(
    agent: FolioAgent, url: str, *, description: str, skills: Sequence[AgentSkill]
) -> Starlette:
    """The ASGI app serving ``agent`` with a card advertising ``url``."""
    card = agent_card(name=agent.name, description=description, url=url, skills=skills)
    runtime = getattr(agent, "runtime", None)
    if runtime is not None:
        card.capabilities.extensions.append(llm_extension(runtime))
    return build_app(FolioAgentExecutor(agent), card)


KEYED_PROVIDERS = frozenset(
    {
        "gemini",
        "openai",
        "anthropic",
        "mistral",
        "groq",
        "deepseek",
        "xai",
        "cohere",
        "openrouter",
        "together_ai",
    }
)
"""Providers whose credentials are always an environment key, so a missing one is certainly an error."""


def missing_credentials(litellm: Any, settings: LLMSettings) -> str | None:
    """Why the model cannot be called (its API key is not set), or None.

    Checked only for providers that always need a key, and only when neither ``--api-base`` nor
    ``LLM_API_KEY`` is given; other providers (Vertex, Bedrock, Ollama, ...) authenticate in ways
    this check cannot see.
    """
    provider = settings.model.split("/", 1)[0]
    if settings.api_base or settings.api_key or provider not in KEYED_PROVIDERS:
        return None
    env = litellm.validate_environment(model=settings.model)
    missing = env.get("missing_keys") or []
    if env.get("keys_in_environment") or not missing:
        return None
    return (
        f"no API key for {settings.model}: set {' or '.join(missing)} (or pass --api-base for a local server)"
    )


def run_llm_agent(
    argv: Sequence[str] | None,
    *,
    prog: str,
    description: str,
    default_port: int,
    add_args: Callable[[argparse.ArgumentParser], None] | None = None,
    make_app: Callable[[argparse.Namespace, LLMSettings, str], Starlette],
) -> int:
    """Parse flags, check the LLM settings (exit 2 with one line if unusable), import litellm, serve."""
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
    litellm = load_litellm()  # pay the import at startup, not on the first task
    problem = missing_credentials(litellm, settings)
    if problem:
        print(f"{prog}: error: {problem}", file=sys.stderr)
        return 2
    log.info("%s serving on %s:%d with model %s", prog, args.host, args.port, settings.model)
    serve(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0
