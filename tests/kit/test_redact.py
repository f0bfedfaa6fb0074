"""URL credentials are masked wherever text leaves the green agent."""

from __future__ import annotations

import logging

import pytest

from green_agent.kit.redact import RedactingFilter, is_credential_key, redact_data, redact_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://user:pw@host:1/a", "http://***@host:1/a"),
        ("see https://tok@h/x and http://a:b@c/", "see https://***@h/x and http://***@c/"),
        ("no credentials: http://host/a@b", "no credentials: http://host/a@b"),
        ("mail me: bob@example.org", "mail me: bob@example.org"),
    ],
)
def test_redact_text_masks_only_the_userinfo_of_urls(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_redact_data_walks_nested_values() -> None:
    data = {
        "participants": {"p": "http://u:secret@h/"},
        "items": [{"error": "at http://u:secret@h/"}],
        "n": 1,
    }
    assert "secret" not in str(redact_data(data)) and redact_data(data)["n"] == 1


def test_log_filter_masks_arguments_and_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("test.redact")
    handler = caplog.handler
    handler.addFilter(RedactingFilter())
    try:
        try:
            raise ValueError("connect to http://u:s3cret@h/ failed")
        except ValueError:
            logger.exception("card from %s", "http://u:s3cret@h/")
    finally:
        handler.removeFilter(handler.filters[-1])
    assert "s3cret" not in caplog.text and "http://***@h/" in caplog.text


@pytest.mark.parametrize(
    "data",
    [
        {"error": "line one\nhttp://u:secret@h/"},  # escaped in JSON text, not in the string
        {"http://u:secret@h/": 1},  # a key
        ("tuple", ["http://u:secret@h/"]),
        {"bytes": b"x", "url": "http://u:secret@h/"},  # not JSON at all
    ],
)
def test_redact_data_masks_credentials_however_they_are_held(data: object) -> None:
    assert "secret" not in str(redact_data(data))


def test_redact_data_returns_data_without_credential_urls_as_it_is() -> None:
    data = {"items": [{"id": "1", "raw": "see http://host/a"}, {"id": "2", "raw": "True"}]}
    assert redact_data(data) is data
    mixed = {"items": [{"raw": "see http://host/a"}, {"raw": "bob@example.org"}]}
    assert redact_data(mixed) == mixed


@pytest.mark.parametrize(
    ("key", "credential"),
    [
        ("api_key", True),
        ("apiKey", True),
        ("x-api-key", True),
        ("OPENAI_API_KEY", True),
        ("password", True),
        ("client_secret", True),
        ("access_token", True),
        ("Authorization", True),
        ("max_tokens", False),
        ("completion_tokens", False),
        ("judge_model", False),
        ("tokenizer", False),
        ("author", False),
        ("monkey", False),
    ],
)
def test_credential_keys_are_told_from_lookalikes(key: str, credential: bool) -> None:
    assert is_credential_key(key) is credential


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abc.def-123", "Authorization: Bearer ***"),
        ("{'authorization': 'Basic dXNlcjpwdw=='}", "{'authorization': '***'}"),
        ("Basic arithmetic, a bearer of news", "Basic arithmetic, a bearer of news"),
        ('"POST /?access_token=t0k&page=2 HTTP/1.1"', '"POST /?access_token=***&page=2 HTTP/1.1"'),
        ("http://h/a?q=token&api_key=k1", "http://h/a?q=token&api_key=***"),
        ('{"api_key": "sk-1\\"2", "max_tokens": "5"}', '{"api_key": "***", "max_tokens": "5"}'),
        ("{'text': '{\"password\": \"pw\"}'}", "{'text': '{\"password\": \"***\"}'}"),
        (
            '{"text": "{\\"token\\": \\"t\\\\\\"k\\", \\"n\\": \\"x\\"}"}',
            '{"text": "{\\"token\\": \\"***\\", \\"n\\": \\"x\\"}"}',
        ),
    ],
)
def test_redact_text_masks_authorization_credentials_and_credential_fields(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_redact_data_masks_credential_fields_whatever_their_value() -> None:
    data = {"config": {"api_key": 12345, "token": None, "limit": 2}}
    assert redact_data(data) == {"config": {"api_key": "***", "token": None, "limit": 2}}
