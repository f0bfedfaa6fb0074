"""The reproducibility block: what ran, on which data, with which settings and software."""

from __future__ import annotations

import functools
import hashlib
import json
import platform
from collections.abc import Mapping
from datetime import datetime, timezone
from importlib import metadata
from typing import Any

from green_agent.kit.declared import card_llm

DISTRIBUTION = "agentified-assessment"
_DEPENDENCIES = ("a2a-sdk", "z3-solver", "litellm", "jsonschema")
_CARD_FIELDS = ("name", "version", "url", "description")
_SECRET_WORDS = ("key", "token", "secret", "password", "authorization")


def redact(config: Mapping[str, Any]) -> dict[str, Any]:
    """Copy of ``config`` with values under secret-looking keys (``api_key``, ``token``...) hidden."""
    out: dict[str, Any] = {}
    for k, v in config.items():
        if any(w in str(k).lower() for w in _SECRET_WORDS) and v not in (None, ""):
            out[k] = "***"
        elif isinstance(v, Mapping):
            out[k] = redact(v)
        else:
            out[k] = v
    return out


@functools.cache
def package_version(dist: str = DISTRIBUTION) -> str | None:
    """Installed version of ``dist``; the in-tree ``__version__`` or None when not installed.

    Read once per process: what runs is what was imported, and reading a distribution's
    metadata costs about half a millisecond, paid on every result.
    """
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        if dist != DISTRIBUTION:
            return None
        try:
            from green_agent import __version__
        except ImportError:
            return None
        return str(__version__)


def _timestamp(value: Any) -> str | None:
    """ISO-8601 UTC text for a datetime, an epoch number or an already formatted string."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    when = datetime.fromtimestamp(value, tz=timezone.utc) if isinstance(value, (int, float)) else value
    if isinstance(when, datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return when.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    raise TypeError(f"unsupported timestamp {value!r}")


def _duration(started: Any, finished: Any) -> float | None:
    try:
        a = datetime.fromisoformat(str(_timestamp(started)).replace("Z", "+00:00"))
        b = datetime.fromisoformat(str(_timestamp(finished)).replace("Z", "+00:00"))
    except ValueError:
        return None
    return round((b - a).total_seconds(), 3)


def _card_summary(card: Mapping[str, Any]) -> dict[str, Any]:
    """Identifying card fields plus the sha256 of the whole card (canonical JSON)."""
    out = {k: card[k] for k in _CARD_FIELDS if card.get(k) is not None}
    canonical = json.dumps(card, sort_keys=True, separators=(",", ":"), default=str)
    out["card_sha256"] = hashlib.sha256(canonical.encode()).hexdigest()
    if (llm := card_llm(card)) is not None:
        out["llm"] = llm
    return out


def reproducibility_block(
    *,
    dataset: Mapping[str, Any],
    config: Mapping[str, Any],
    seed: Any,
    started_at: Any,
    finished_at: Any,
    participants_cards: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """Everything needed to rerun an assessment and to check a rerun matches.

    Timestamps may be datetimes, epoch seconds or ISO strings; they are stored as ISO-8601 UTC.
    Secret-looking config values are masked; agent cards are reduced to name/version/url/description and a hash of the full card,
    plus the model a card declares (``llm``: model, provider, temperature, prompt version).
    """
    deps = {d: v for d in _DEPENDENCIES if (v := package_version(d)) is not None}
    return {
        "package": DISTRIBUTION,
        "version": package_version() or "unknown",
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "dependencies": deps,
        "dataset": dict(dataset),
        "config": redact(config),
        "seed": seed,
        "started_at": _timestamp(started_at),
        "finished_at": _timestamp(finished_at),
        "duration_s": _duration(started_at, finished_at),
        "participants": {role: _card_summary(card) for role, card in participants_cards.items()},
    }
