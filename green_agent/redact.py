"""Credentials in URLs (``http://user:secret@host``) never reach a log, an error or a result.

:func:`redact_text` masks the user-info part of every URL in a string; :func:`redact_data`
applies it to every string inside JSON-like data; :class:`RedactingFilter` applies it to every log
record (installed on the root handlers, so third-party loggers are covered as well).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from typing import Any

MASK = "***"
_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^\s/@?#\"'<>]+)@")


def redact_text(text: str) -> str:
    """``text`` with every URL's ``user:password@`` replaced by ``***@``."""
    return _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)


def redact_url(url: str) -> str:
    """One URL with its credentials masked."""
    return redact_text(url)


def redact_data(value: Any) -> Any:
    """JSON-like ``value`` with :func:`redact_text` applied to every string (keys too).

    A credential URL needs both ``://`` and ``@`` in one string, and JSON text escapes neither,
    so data whose JSON text lacks one is returned as it is (a result of a thousand items, walked
    string by string, cost milliseconds for nothing); anything else is copied with every string
    masked.
    """
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # not JSON: walk it as it is
        text = "://@"
    if "://" not in text or "@" not in text:
        return value
    return _masked(value)


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {_masked(k): _masked(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked(v) for v in value]
    return value


class RedactingFilter(logging.Filter):
    """Formats each record's message once and masks URL credentials in it (and in its traceback)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact_text(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_text(record.exc_text)
        return True


def install_log_redaction() -> None:
    """Attach :class:`RedactingFilter` to every handler of the root logger (call after configuring it)."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
