"""The white agents' side of LLM access: settings from flags/env, and the shared client metering spend.

The client, its settings type, retry policy, circuit breaker and failure naming are the shared ones of
:mod:`green_agent.llm` (also used by the cleaning stages and the anomaly judge). This module adds what
only an agent process needs: the ``--model``/``--api-base``/... flags and their environment variables,
and a client that adds each completion's usage to the running A2A task's spend meter
(:mod:`white_agents.common.spend`). Importing it never imports litellm.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path

from green_agent.kit import cli_args
from green_agent.kit.errors import InputError
from green_agent.llm import LLMClient, LLMError, LLMReply, LLMSettings, Messages, Usage, load_litellm
from green_agent.llm.keys import KEY_ENV
from green_agent.llm.record import RecordError, Replay
from white_agents.common.spend import record_stage, record_usage

__all__ = [
    "API_BASE_ENV",
    "API_KEY_ENV",
    "MODEL_ENV",
    "ConfigError",
    "LLMError",
    "LLMReply",
    "LLMSettings",
    "MeteredLLMClient",
    "Usage",
    "add_llm_args",
    "load_litellm",
    "settings_from_args",
]

MODEL_ENV = "LLM_MODEL"
"""Environment variable naming the litellm model; overrides ``--model-default`` but not ``--model``."""
API_BASE_ENV = "LLM_API_BASE"
"""Environment variable for an OpenAI-compatible (or other) base URL."""
API_KEY_ENV = KEY_ENV
"""The key variable of the one key rule (:mod:`green_agent.llm.keys`)."""


RECORD_ENV = "LLM_RECORD_DIR"
"""Environment variable for ``--record``."""
REPLAY_ENV = "LLM_REPLAY_DIR"
"""Environment variable for ``--replay``."""


class ConfigError(InputError, ValueError):
    """The LLM settings are unusable (no model configured, bad value)."""


CARD_WAIT_S = 20.0
"""Default ``--card-wait``, from process start: inside the 30 s the AgentBeats gateway and the harness
give every card (:mod:`white_agents.common.startup`)."""


def add_llm_args(parser: argparse.ArgumentParser) -> None:
    """The LLM flags shared by every LLM agent CLI."""
    g = parser.add_argument_group("LLM")
    g.add_argument(
        "--model", default=None, help=f"litellm model string (env {MODEL_ENV}), e.g. gemini/gemini-2.5-flash"
    )
    g.add_argument(
        "--model-default",
        default=None,
        help=f"model used when neither --model nor {MODEL_ENV} is set (for scenario files)",
    )
    g.add_argument("--api-base", default=None, help=f"model endpoint base URL (env {API_BASE_ENV})")
    g.add_argument(
        "--temperature",
        type=cli_args.non_negative_number,
        default=0.0,
        help="sampling temperature (default: %(default)s)",
    )
    g.add_argument(
        "--max-tokens",
        type=cli_args.positive_int,
        default=None,
        help="completion token cap (default: provider's)",
    )
    g.add_argument(
        "--request-timeout",
        type=cli_args.positive_seconds,
        default=120.0,
        help="seconds per LLM request (default: %(default)s)",
    )
    g.add_argument(
        "--retries",
        type=cli_args.non_negative_int,
        default=3,
        help="retries on 429/5xx with backoff (default: %(default)s)",
    )
    g.add_argument(
        "--breaker-threshold",
        type=cli_args.non_negative_int,
        default=5,
        help="consecutive endpoint failures after which calls fail fast; 0 disables (default: %(default)s)",
    )
    g.add_argument(
        "--breaker-cooldown",
        type=cli_args.non_negative_number,
        default=30.0,
        help="seconds calls fail fast once the breaker opened (default: %(default)s)",
    )
    g.add_argument(
        "--record",
        metavar="DIR",
        default=None,
        help=f"record every model call in DIR (prompts.jsonl, calls.jsonl) (env {RECORD_ENV})",
    )
    g.add_argument(
        "--replay",
        metavar="DIR",
        default=None,
        help=f"answer from the record in DIR instead of the model: no key, no network (env {REPLAY_ENV})",
    )
    g.add_argument(
        "--check-endpoint",
        action="store_true",
        help="at start-up, send one tiny completion and exit 2 with the reason if the endpoint fails",
    )
    g.add_argument(
        "--card-wait",
        type=cli_args.non_negative_number,
        default=CARD_WAIT_S,
        metavar="S",
        help="seconds after start until which the agent card answers 503 while litellm imports, so no task "
        "waits for the import; 0 serves it at once (default: %(default)g)",
    )


def settings_from_args(args: argparse.Namespace, env: Mapping[str, str] | None = None) -> LLMSettings:
    """Resolve the settings: ``--model`` > env ``LLM_MODEL`` > ``--model-default``; raise :class:`ConfigError`."""
    env = os.environ if env is None else env
    model = args.model or env.get(MODEL_ENV) or args.model_default
    if not model:
        raise ConfigError(
            f"no LLM model configured: pass --model or set {MODEL_ENV} (e.g. gemini/gemini-2.5-flash)"
        )
    if args.request_timeout <= 0:
        raise ConfigError("--request-timeout must be positive")
    if args.retries < 0:
        raise ConfigError("--retries must be >= 0")
    if args.breaker_threshold < 0 or args.breaker_cooldown <= 0:
        raise ConfigError("--breaker-threshold must be >= 0 and --breaker-cooldown positive")
    record = args.record or env.get(RECORD_ENV) or None
    replay = args.replay or env.get(REPLAY_ENV) or None
    if record and replay:
        raise ConfigError("--record and --replay exclude each other")
    if replay:
        try:
            Replay(Path(replay))
        except RecordError as exc:
            raise ConfigError(str(exc)) from None
    return LLMSettings(
        model=model,
        record_dir=record,
        replay_dir=replay,
        api_base=args.api_base or env.get(API_BASE_ENV) or None,
        api_key=env.get(API_KEY_ENV) or None,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        request_timeout_s=args.request_timeout,
        retries=args.retries,
        breaker_threshold=args.breaker_threshold,
        breaker_cooldown_s=args.breaker_cooldown,
    )


class MeteredLLMClient(LLMClient):
    """The shared client (:class:`green_agent.llm.LLMClient`), adding each completion's usage to the
    current task's spend meter and noting that the task is waiting on the model (its stage, should it be
    stopped now)."""

    def __init__(self, settings: LLMSettings) -> None:
        super().__init__(settings, on_usage=record_usage)

    async def complete(self, messages: Messages) -> LLMReply:
        record_stage("llm")
        return await super().complete(messages)
