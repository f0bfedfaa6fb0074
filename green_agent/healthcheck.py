"""``python -m green_agent.healthcheck``: the images' exec-form Docker health check.

Fetches the agent card from ``127.0.0.1:$AGENT_PORT`` (the port the agent binds by default, see
:data:`green_agent.serving.PORT_ENV`) and exits 0 if it answers 200, 1 otherwise. It runs in the
image's own Python, so images need no curl and no shell.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

from green_agent.serving import default_port_from_env

CARD_PATH = "/.well-known/agent-card.json"
DEFAULT_PORT = 9009
TIMEOUT_S = 2.5


def probe(port: int, *, timeout_s: float = TIMEOUT_S) -> str | None:
    """None if the agent card at ``port`` answers 200, else why not (one line)."""
    url = f"http://127.0.0.1:{port}{CARD_PATH}"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            if response.status == 200:
                return None
            return f"{url}: HTTP {response.status}"
    except (urllib.error.URLError, OSError) as exc:
        return f"{url}: {getattr(exc, 'reason', exc)}"


def main() -> int:
    problem = probe(default_port_from_env(DEFAULT_PORT))
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
