"""``python -m white_agents.cot [--model M] [--host H] [--port 9021] [--card-url U]``."""

from __future__ import annotations

# ruff: noqa: E402
from green_agent.kit.process import apply_process_defaults

apply_process_defaults()  # before anything below imports a2a-sdk: see green_agent/kit/process.py

import sys
from collections.abc import Sequence

from white_agents.common.llm import MeteredLLMClient
from white_agents.common.server import run_llm_agent
from white_agents.cot.agent import CotAgent, create_app


def main(argv: Sequence[str] | None = None) -> int:
    return run_llm_agent(
        argv,
        prog="white_agents.cot",
        description="Chain-of-thought FOLIO agent over A2A (any litellm model).",
        default_port=9021,
        make_app=lambda args, settings, url: create_app(CotAgent(MeteredLLMClient(settings)), url),
    )


if __name__ == "__main__":
    sys.exit(main())
