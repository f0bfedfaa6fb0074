"""Credentials (``http://user:secret@host``, ``Bearer …``, ``"api_key": "…"``) never reach a log,
an error or a result.

:func:`redact_text` masks the user-info part of every URL in a string, the credentials of HTTP
``Authorization`` schemes, and the values of credential-named keys written as ``"key": "value"``;
:func:`redact_data` applies it to every string inside JSON-like data; :class:`RedactingFilter`
applies it to every log record (installed on the root handlers, so third-party loggers are covered
as well). :func:`is_credential_key` says which field names hold credentials.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping
from typing import Any

MASK = "***"
_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^\s/@?#\"'<>]+)@")
_AUTH_SCHEME = re.compile(
    r"(?P<scheme>\b(?:Bearer|bearer|BEARER|Basic|Token)\s+)(?P<secret>(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{8,})"
)
"""An HTTP ``Authorization`` credential; it must hold a digit or a symbol, so prose ("Basic arithmetic") stays."""
_QUOTED_FIELD = re.compile(
    r"""(?P<key>(?P<q>["'])(?P<name>[A-Za-z0-9_.-]{1,64})(?P=q)\s*:\s*)(?P<value>"(?:[^"\\]|\\.)*"|'[^']*')"""
)
_ESCAPED_FIELD = re.compile(
    r'(?P<key>\\"(?P<name>[A-Za-z0-9_.-]{1,64})\\"\s*:\s*)\\"(?:\\{4}|\\{3}"|\\{2}[^"\\]|[^"\\])*\\"'
)
"""The same, in JSON text held in a JSON string (``{\"api_key\": \"…\"}``)."""
_QUERY_FIELD = re.compile(r"(?P<key>[?&;](?P<name>[A-Za-z0-9_.-]{1,64})=)(?P<value>[^&;#\s\"'<>]+)")
"""A query parameter (``?access_token=…``): a token a client put in a URL reaches access logs."""
_CREDENTIAL_WORDS = frozenset(
    {"password", "passwd", "passphrase", "secret", "apikey", "authorization", "credential", "credentials"}
    | {"cookie", "bearer"}
)
_CREDENTIAL_ENDINGS = ("api_key", "access_key", "private_key", "secret_key", "session_key", "auth", "token")


@functools.lru_cache(maxsize=4096)
def is_credential_key(key: str) -> bool:
    """Whether a field named ``key`` holds a credential: ``api_key``, ``apiKey``, ``x-api-key``,
    ``password``, ``access_token``, ``Authorization``, ``client_secret``… (not ``max_tokens``)."""
    name = re.sub(r"[^a-z0-9]+", "_", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", key).lower()).strip("_")
    words = name.split("_")
    return bool(_CREDENTIAL_WORDS.intersection(words)) or name == "key" or name.endswith(_CREDENTIAL_ENDINGS)


def _masked_field(match: re.Match[str]) -> str:
    """A credential field's value masked; any other value searched for fields in turn (a JSON text
    held in a string of a logged dict, ``{'text': '{"api_key": "…"}'}``)."""
    quote, inner = match["value"][0], match["value"][1:-1]
    if is_credential_key(match["name"]):
        return f"{match['key']}{quote}{MASK}{quote}"
    if ":" not in inner:
        return match[0]
    return f"{match['key']}{quote}{_masked_fields(inner)}{quote}"


def _masked_escaped_field(match: re.Match[str]) -> str:
    return f'{match["key"]}\\"{MASK}\\"' if is_credential_key(match["name"]) else match[0]


def _masked_fields(text: str) -> str:
    text = _QUOTED_FIELD.sub(_masked_field, text)
    return _ESCAPED_FIELD.sub(_masked_escaped_field, text) if '\\"' in text else text


_AUTH_WORDS = ("Bearer", "bearer", "BEARER", "Basic", "Token")


def redact_text(text: str) -> str:
    """``text`` with every URL's ``user:password@`` replaced by ``***@``, every ``Bearer``/``Basic``
    credential by ``***``, every credential query parameter's value (``?access_token=…``) and every
    quoted credential field's value (``"token": "…"``) by ``***``.

    Each pattern runs only on text holding the characters it needs: most text (a participant's
    answer, a status line) holds none, and is returned after a few substring tests.
    """
    if "://" in text and "@" in text:
        text = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    if any(word in text for word in _AUTH_WORDS):
        text = _AUTH_SCHEME.sub(lambda m: f"{m['scheme']}{MASK}", text)
    if "=" in text:
        text = _QUERY_FIELD.sub(lambda m: m["key"] + MASK if is_credential_key(m["name"]) else m[0], text)
    if ":" in text and ('"' in text or "'" in text):
        text = _masked_fields(text)
    return text


def redact_url(url: str) -> str:
    """One URL with its credentials masked."""
    return redact_text(url)


def redact_data(value: Any) -> Any:
    """JSON-like ``value`` with :func:`redact_text` applied to every string (keys too), and the
    value of every credential-named key (:func:`is_credential_key`) replaced by ``***``.

    Data holding nothing to mask is returned as it is, after a walk that copies nothing (a result
    of five thousand items costs about 20 ms); anything else is copied with every string masked.
    """
    return _masked(value) if _holds_secret(value) else value


def _holds_secret(value: Any) -> bool:
    """Whether :func:`_masked` would change ``value`` (a walk without recursion or copies)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if redact_text(item) != item:
                return True
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                if isinstance(key, str) and ((is_credential_key(key) and inner) or _key_holds_secret(key)):
                    return True
                stack.append(inner)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


@functools.lru_cache(maxsize=4096)
def _key_holds_secret(key: str) -> bool:
    return redact_text(key) != key


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, Mapping):
        return {
            _masked(k): MASK if isinstance(k, str) and is_credential_key(k) and v else _masked(v)
            for k, v in value.items()
        }
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


OWN_HANDLER_LOGGERS = ("uvicorn.access", "uvicorn.error")
"""Loggers that uvicorn gives handlers of their own (not the root's): their records are filtered at the
logger, which uvicorn's logging configuration leaves in place."""


def install_log_redaction() -> None:
    """Attach :class:`RedactingFilter` to every handler of the root logger (call after configuring it)
    and to the loggers of :data:`OWN_HANDLER_LOGGERS`."""
    holders: list[logging.Filterer] = [*logging.getLogger().handlers]
    holders += [logging.getLogger(name) for name in OWN_HANDLER_LOGGERS]
    for holder in holders:
        if not any(isinstance(f, RedactingFilter) for f in holder.filters):
            holder.addFilter(RedactingFilter())
