"""Start-up of an LLM agent: card first, litellm later, quiet logs, an optional endpoint check.

litellm's import takes seconds (tens of seconds on a loaded machine), longer than a harness waits for
an agent card. So the agent serves its card at once and imports litellm in a background thread as
soon as the server accepts connections; a task that arrives earlier waits for that import (never
on the event loop). litellm logs every call at INFO level; it is kept at WARNING unless the agent
runs with ``--log-level debug`` (the HTTP libraries likewise, by :func:`green_agent.kit.server.serving.serve`).
"""

from __future__ import annotations

import logging
import socket
import threading
import time

from green_agent.llm import load_litellm, set_litellm_log_level
from green_agent.llm.probe import probe, probes_directly
from white_agents.common.llm import LLMClient, LLMError, LLMSettings

log = logging.getLogger(__name__)


def quiet_library_logs(log_level: str) -> None:
    """Keep litellm's per-call lines out of the log unless debugging."""
    set_litellm_log_level(logging.DEBUG if log_level == "debug" else logging.WARNING)


def _listening(host: str, port: int) -> bool:
    target = "127.0.0.1" if host in ("0.0.0.0", "", "::") else host
    try:
        with socket.create_connection((target, port), timeout=0.5):
            return True
    except OSError:
        return False


def import_litellm_when_serving(host: str, port: int, *, wait_s: float = 60.0) -> threading.Thread:
    """Import litellm in a daemon thread once ``host:port`` accepts connections (or after ``wait_s``)."""

    def warm_up() -> None:
        end = time.monotonic() + wait_s
        while time.monotonic() < end and not _listening(host, port):
            time.sleep(0.05)
        started = time.monotonic()
        load_litellm()
        log.info("litellm imported in %.1f s (after the card was served)", time.monotonic() - started)

    thread = threading.Thread(target=warm_up, name="litellm-import", daemon=True)
    thread.start()
    return thread


async def endpoint_problem(settings: LLMSettings) -> str | None:
    """Send one tiny completion (no retry); the classified reason it failed, or None.

    An OpenAI-compatible ``api_base`` is probed with one direct HTTP request, before (and without)
    the litellm import (:mod:`green_agent.llm.probe`); other providers through litellm.
    """
    if settings.api_base and probes_directly(settings.model, settings.api_base):
        failure = await probe(settings.model, settings.api_base, settings.api_key, settings.request_timeout_s)
        if failure is None:
            return None
        return f"model endpoint check failed: LLM call failed after 1 attempt(s): {failure.message}"
    probe_client = LLMClient(
        LLMSettings(
            model=settings.model,
            api_base=settings.api_base,
            api_key=settings.api_key,
            temperature=settings.temperature,
            max_tokens=1,
            request_timeout_s=settings.request_timeout_s,
            retries=0,
            breaker_threshold=0,
            extra=settings.extra,
        )
    )
    try:
        await probe_client.complete([{"role": "user", "content": "Reply with OK."}])
    except LLMError as exc:
        return f"model endpoint check failed: {exc}"
    return None
