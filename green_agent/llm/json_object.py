"""Find the one JSON object a model wrote into free text.

Models wrap the JSON they are asked for in prose, code fences or a first draft they then revise, so
the object that counts is the *last* one in the text (the last opening brace that starts a JSON
object, optionally one holding a given key). The text is hostile — a participant's reply or a
model's answer — so the search is bounded: only the last ``max_chars`` characters are read, at most
``max_starts`` opening braces are tried (from the end, so the usual case stops at the first try),
and anything the decoder refuses — bad syntax, nesting too deep, an integer too long to convert —
counts as "no object here" instead of raising.
"""

from __future__ import annotations

import json
from typing import Any

MAX_CHARS = 1 << 20
"""Characters read from the end of the text (the anomaly protocol's default reply cap is 1 MiB)."""
MAX_STARTS = 256
"""Opening braces tried, last first: each try decodes forward from its brace."""


def last_json_object(
    text: str,
    *,
    with_key: str | None = None,
    max_chars: int = MAX_CHARS,
    max_starts: int = MAX_STARTS,
) -> dict[str, Any] | None:
    """The JSON object that starts last in ``text`` (and holds ``with_key``, if given), else ``None``.

    An object nested in another counts on its own: ``{"a": {"k": 1}}`` with ``with_key="k"`` finds
    ``{"k": 1}``. Trailing text after the object is ignored.
    """
    window_start = max(0, len(text) - max_chars)
    decoder = json.JSONDecoder()
    start = len(text)
    for _ in range(max_starts):
        start = text.rfind("{", window_start, start)
        if start < 0:
            return None
        try:
            obj, _end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            continue
        if isinstance(obj, dict) and (with_key is None or with_key in obj):
            return obj
    return None
