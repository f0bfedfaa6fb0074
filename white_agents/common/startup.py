"""Start-up of an LLM agent: litellm imported from process start, the card honest about readiness,
quiet logs, an optional endpoint check.

litellm's import takes seconds (about 4 s idle, tens of seconds on a loaded machine). An agent that
served its card before the import let readiness checks pass while its first tasks still waited for
the import, so their latency measured the import, not the agent. So the import starts with the
process, and the agent card answers 503 (``Retry-After: 1``) until it is done, at most until
``--card-wait`` seconds after the process started (default 20 s: the AgentBeats gateway gives every
card 30 s from its own start, then fails the whole run, and the harness waits 30 s). Past that the
card is served anyway, with a warning, and a task waits for the rest of the import (never on the
event loop). litellm logs every call at INFO level; it is kept at WARNING unless
the agent runs with ``--log-level debug`` (the HTTP libraries likewise, by
:func:`green_agent.kit.server.serving.serve`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from green_agent.llm import load_litellm, set_litellm_log_level
from green_agent.llm.probe import probe, probes_directly
from white_agents.common.llm import LLMError, LLMSettings, MeteredLLMClient

log = logging.getLogger(__name__)


def quiet_library_logs(log_level: str) -> None:
    """Keep litellm's per-call lines out of the log unless debugging."""
    set_litellm_log_level(logging.DEBUG if log_level == "debug" else logging.WARNING)


_CARD_PATHS = "/.well-known/"


def start_litellm_import() -> threading.Event:
    """Import litellm in a daemon thread from now; the event is set once it is done (or failed: the
    first task then reports why, as before)."""
    done = threading.Event()

    def run() -> None:
        started = time.monotonic()
        try:
            load_litellm()
            log.info("litellm imported in %.1f s", time.monotonic() - started)
        except Exception:  # a task's own import attempt then reports it as its failure
            log.warning("litellm import failed; tasks will report it", exc_info=True)
        finally:
            done.set()

    threading.Thread(target=run, name="litellm-import", daemon=True).start()
    return done


def process_age_s() -> float:
    """Seconds since this process started (Linux ``/proc``; elsewhere 0: counted from now)."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started_s = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime, in clock ticks
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started_s)
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


def card_after_import(app: ASGIApp, imported: threading.Event, wait_s: float) -> ASGIApp:
    """``app`` whose agent card answers 503 until ``imported`` is set or until ``wait_s`` seconds after
    the process started, so a readiness check passes only when a task will not wait for the import,
    yet always within the readiness windows that count from the containers' start."""
    deadline = time.monotonic() - process_age_s() + wait_s
    warned: list[bool] = []

    async def gated(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(_CARD_PATHS) and not imported.is_set():
            if time.monotonic() < deadline:
                busy = PlainTextResponse(
                    "starting: importing the LLM library", status_code=503, headers={"Retry-After": "1"}
                )
                await busy(scope, receive, send)
                return
            if not warned:
                warned.append(True)
                log.warning(
                    "litellm still importing after %g s: card served; first tasks wait for it", wait_s
                )
        await app(scope, receive, send)

    return gated


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
    probe_client = MeteredLLMClient(
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
