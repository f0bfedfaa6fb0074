"""Ceilings the operator sets on the budgets a request may choose.

A request chooses its own per-call budget (``timeout_s``, ``max_retries``, ``max_response_bytes``), its
``concurrency`` and its run's ``deadline_s`` (:class:`~green_agent.core.config.RunConfig`). The config
models bound them only by what makes sense at all (a day, 1 GiB): a request raising
``max_response_bytes`` to 1 GiB pushed the agent's RSS past 800 MiB with one 128 MiB gzip reply, and
``timeout_s: 86400`` against a slow participant held an assessment slot for a day. The operator's
ceilings are lower, and a request over one is *refused* naming the field and the ceiling, never
silently clamped (a clamped run would not be the run that was asked for).

Checked at admission (:class:`~green_agent.service.admission.Admitting`) for every plugin: first the
request's raw config values (before the plugin reads anything), then, when the plan carries a
:class:`RunConfig`, the values the run will use, defaults included.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from green_agent.core.config import RunConfig
from green_agent.core.contract import RequestError
from green_agent.kit.cli_args import non_negative_int, positive_int, positive_seconds


@dataclass(frozen=True)
class Ceilings:
    """The largest value a request may give each budget (flags ``--ceiling-<field>``, env
    ``GREEN_AGENT_CEILING_<FIELD>``; docs/hosting.md, Ceilings)."""

    timeout_s: float = 600
    """Seconds of one call to a participant, retries included (FOLIO's default is 120, anomaly's 60)."""
    deadline_s: float = 6 * 3600
    """Seconds of a whole run, when the request sets a deadline."""
    concurrency: int = 64
    """Units in flight at once per participant (all assessments share ``--max-outbound`` calls)."""
    max_retries: int = 5
    """Retries of one call after a retryable transport fault."""
    max_response_bytes: int = 16 << 20
    """Largest reply accepted from a participant, once decoded (16 MiB)."""

    def check_raw(self, config: Mapping[str, Any]) -> None:
        """Refuse the first raw config value over its ceiling (non-numbers are the config model's)."""
        for name, ceiling in self._items():
            value = config.get(name)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > ceiling:
                raise self._refusal(name, value, ceiling, default=False)

    def check_effective(self, config: RunConfig, raw: Mapping[str, Any]) -> None:
        """Refuse the first value the run would use over its ceiling (a plugin default too)."""
        used = {**config.as_dict(), "deadline_s": config.run_deadline_s}
        for name, ceiling in self._items():
            value = used.get(name)
            if isinstance(value, (int, float)) and value > ceiling:
                raise self._refusal(name, value, ceiling, default=name not in raw)

    def _items(self) -> Iterator[tuple[str, float]]:
        for field in fields(self):
            yield field.name, getattr(self, field.name)

    @staticmethod
    def _refusal(name: str, value: float, ceiling: float, *, default: bool) -> RequestError:
        flag = "--ceiling-" + name.replace("_", "-")
        what = _number(value) + (" (this plugin's default)" if default else "")
        return RequestError(
            f"config.{name}",
            f"{what} is over this green agent's ceiling of {_number(ceiling)}; send at most "
            f"{_number(ceiling)} (its operator sets the ceiling with {flag})",
        )


def _number(value: float) -> str:
    """``21,600`` for an integral value (int or float), else as written (``0.5``)."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


_ARG_TYPES: dict[str, Callable[[str], float]] = {
    "timeout_s": positive_seconds,
    "deadline_s": positive_seconds,
    "concurrency": positive_int,
    "max_retries": non_negative_int,
    "max_response_bytes": positive_int,
}
"""The argparse type of each ceiling's flag (a bad value, from the flag or its env var: one line, exit 2)."""


def add_ceiling_args(parser: argparse.ArgumentParser) -> None:
    """``--ceiling-<field>`` for every field of :class:`Ceilings`, defaulting to its env var."""
    defaults = Ceilings()
    for field in fields(Ceilings):
        env = "GREEN_AGENT_CEILING_" + field.name.upper()
        kind = _ARG_TYPES[field.name]
        parser.add_argument(
            "--ceiling-" + field.name.replace("_", "-"),
            dest="ceiling_" + field.name,
            type=kind,
            # a string default goes through ``type`` too, so a bad env value is a usage error
            default=os.environ.get(env, "").strip() or getattr(defaults, field.name),
            metavar="S" if kind is positive_seconds else "N",
            help=f"largest config.{field.name} a request may send; more is refused "
            f"(default: %(default)s; env {env})",
        )


def ceilings_from_args(args: argparse.Namespace) -> Ceilings:
    return Ceilings(**{field.name: getattr(args, "ceiling_" + field.name) for field in fields(Ceilings)})
