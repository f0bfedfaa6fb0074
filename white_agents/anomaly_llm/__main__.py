"""``python -m white_agents.anomaly_llm --model M [--api-base URL]``: the LLM anomaly participant."""

from __future__ import annotations

import argparse
import os
import sys

from green_agent.serving import add_server_args, card_url_from_args, serve
from white_agents.anomaly_baseline.agent_server import create_participant_app
from white_agents.anomaly_llm.policy import LLMPolicy


def create_app(
    url: str, model: str, api_base: str | None = None, *, timeout_s: float = 120.0, max_contexts: int = 256
):
    return create_participant_app(
        lambda: LLMPolicy(model, api_base, timeout_s),
        name=f"anomaly LLM agent ({model})",
        description="Plans, reads, queries the knowledge base, tests hypotheses and reports anomalies, with a small "
        "working memory of its findings.",
        url=url,
        max_contexts=max_contexts,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m white_agents.anomaly_llm", description=__doc__)
    add_server_args(parser, default_port=9120)
    parser.add_argument(
        "--model", default=os.environ.get("ANOMALY_LLM_MODEL"), help="litellm model name ($ANOMALY_LLM_MODEL)"
    )
    parser.add_argument(
        "--api-base", default=os.environ.get("ANOMALY_LLM_API_BASE"), help="OpenAI-compatible base URL"
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per model call")
    parser.add_argument("--max-contexts", type=int, default=256, help="episodes remembered at once (LRU)")
    args = parser.parse_args(argv)
    if not args.model:
        print(
            "anomaly_llm: error: no model configured: pass --model (e.g. gemini/gemini-2.5-flash) or set ANOMALY_LLM_MODEL",
            file=sys.stderr,
        )
        return 2
    app = create_app(
        card_url_from_args(args),
        args.model,
        args.api_base,
        timeout_s=args.timeout,
        max_contexts=args.max_contexts,
    )
    serve(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


if __name__ == "__main__":
    sys.exit(main())
