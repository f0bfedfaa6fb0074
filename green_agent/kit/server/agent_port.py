"""The ``AGENT_PORT`` default port, read by every agent CLI and by the image health check.

Standard library only: :mod:`green_agent.kit.server.healthcheck` imports it, and a probe must not pay for the
A2A server stack.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

PORT_ENV = "AGENT_PORT"
"""Environment variable giving the default ``--port`` (images set it, and their health check reads it)."""


def default_port_from_env(fallback: int, env: Mapping[str, str] | None = None) -> int:
    """``$AGENT_PORT`` when set to a valid port, else ``fallback``; a bad value is a clear error."""
    raw = (os.environ if env is None else env).get(PORT_ENV, "").strip()
    if not raw:
        return fallback
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise SystemExit(f"error: {PORT_ENV}={raw!r} is not a port number (1-65535)")
    return int(raw)
