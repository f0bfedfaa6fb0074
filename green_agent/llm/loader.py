"""The one place litellm is imported, so every LLM caller gets the same no-network import policy.

litellm fetches a model cost map from the network at import unless ``LITELLM_LOCAL_MODEL_COST_MAP``
is set, and its import costs seconds and ~200 MB; so it is imported lazily, only in processes that
call an LLM, with the local map, telemetry off, its debug banner suppressed and its per-call INFO
lines off unless asked for (:func:`set_litellm_log_level`).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Any

_litellm: Any = None
_lock = threading.Lock()
_log_level = logging.WARNING
_LITELLM_LOGGERS = ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy")


def set_litellm_log_level(level: int) -> None:
    """Level of litellm's own loggers (WARNING by default: it logs every call at INFO, twice)."""
    global _log_level
    _log_level = level
    for name in _LITELLM_LOGGERS:
        logging.getLogger(name).setLevel(level)


def load_litellm() -> Any:
    """Import litellm once (thread-safe), with the local cost map."""
    global _litellm
    with _lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            _litellm = litellm
            set_litellm_log_level(_log_level)  # its import sets its own levels
    return _litellm


async def aload_litellm() -> Any:
    """:func:`load_litellm` for async callers: a first import runs in a thread, never on the event loop."""
    if _litellm is not None:
        return _litellm
    return await asyncio.to_thread(load_litellm)
