"""``python -m white_agents.anomaly_llm --model M [--api-base URL]``: the LLM anomaly participant.

LLM flags and environment (``LLM_MODEL``, ``LLM_API_BASE``, ``LLM_API_KEY``), retries and timeouts are
those of every LLM white agent (:mod:`white_agents.common.llm`).
"""

from __future__ import annotations

# ruff: noqa: E402
from green_agent.kit import cli_args
from green_agent.kit.process import apply_process_defaults

apply_process_defaults()  # before anything below imports a2a-sdk: see green_agent/kit/process.py

import sys

from starlette.types import ASGIApp

from green_agent.kit.server.serving import add_server_args, card_url_from_args
from white_agents.anomaly_baseline.agent_server import create_participant_app
from white_agents.anomaly_llm.policy import PROMPT_VERSION, LLMPolicy
from white_agents.common.llm import (
    ConfigError,
    LLMSettings,
    MeteredLLMClient,
    add_llm_args,
    settings_from_args,
)
from white_agents.common.runtime import runtime_of
from white_agents.common.server import serve_llm_app

PROG = "python -m white_agents.anomaly_llm"


def create_app(url: str, settings: LLMSettings, *, max_contexts: int = 256) -> ASGIApp:
    """The participant app: one :class:`LLMPolicy` per episode, sharing one LLM client."""
    llm = MeteredLLMClient(settings)
    return create_participant_app(
        lambda: LLMPolicy(llm),
        name=f"anomaly LLM agent ({settings.model})",
        description="Plans, reads, queries the knowledge base, tests hypotheses and reports anomalies, with a small "
        "working memory of its findings.",
        url=url,
        max_contexts=max_contexts,
        runtime=runtime_of(settings, PROMPT_VERSION),
    )


def main(argv: list[str] | None = None) -> int:
    parser = cli_args.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    add_server_args(parser, default_port=9120)
    add_llm_args(parser)
    parser.add_argument(
        "--max-contexts", type=cli_args.positive_int, default=256, help="episodes remembered at once (LRU)"
    )
    args = parser.parse_args(argv)
    try:
        settings = settings_from_args(args)
    except ConfigError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    app = create_app(card_url_from_args(args), settings, max_contexts=args.max_contexts)
    return serve_llm_app(PROG, app, args, settings)


if __name__ == "__main__":
    sys.exit(main())
