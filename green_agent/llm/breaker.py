"""A circuit breaker for the model endpoint: stop spending every item's retries on a dead endpoint.

After ``threshold`` consecutive endpoint failures (any task, any attempt) the breaker opens: calls
fail at once, saying why, for ``cooldown_s`` seconds. Then calls go through again; one success
closes the breaker, one more failure opens it for another cool-down.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class CircuitBreaker:
    """Consecutive-failure breaker, shared by every task of one agent process (single event loop)."""

    threshold: int = 5
    """Consecutive endpoint failures that open the breaker (0 disables it)."""
    cooldown_s: float = 30.0
    """How long an open breaker fails calls before letting them try again."""
    failures: int = 0
    """Consecutive failures so far."""
    last_failure: str = ""
    """The most recent failure, for the fail-fast message."""
    open_until: float = 0.0
    """``time.monotonic()`` until which calls fail fast."""

    def blocked(self) -> str | None:
        """Why a call must fail fast now, or None when it may go ahead."""
        if not self.threshold or time.monotonic() >= self.open_until:
            return None
        left = self.open_until - time.monotonic()
        return (
            f"model endpoint failed {self.failures} times in a row (last: {self.last_failure}); "
            f"failing fast for another {left:.0f} s instead of trying again"
        )

    def record_failure(self, summary: str) -> None:
        """Count a failure of the endpoint; open the breaker at the threshold."""
        self.failures += 1
        self.last_failure = summary
        if self.threshold and self.failures >= self.threshold:
            self.open_until = time.monotonic() + self.cooldown_s

    def record_success(self) -> None:
        """The endpoint answered: close the breaker."""
        self.failures = 0
        self.open_until = 0.0
