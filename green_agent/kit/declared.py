"""What a participant declares it runs on (model, provider, temperature, prompt version).

LLM participants declare it in their card, as the A2A extension :data:`LLM_EXTENSION_URI` whose
params are the fields below, and as ``"llm"`` in the data part of each answer. Both are participant
input: only the known fields are kept, as short strings and plain numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

LLM_EXTENSION_URI = "urn:agentified-assessment:ext:llm-runtime:v1"
"""The card extension through which a participant names its model."""
_TEXT_FIELDS = ("model", "provider", "prompt_version", "replay_of")
_TEXT_LIMIT = 200


def sane_llm(value: Any) -> dict[str, Any] | None:
    """The known fields of a declaration, sanitised; None when it declares no model."""
    if not isinstance(value, Mapping):
        return None
    out: dict[str, Any] = {}
    for key in _TEXT_FIELDS:
        text = value.get(key)
        if isinstance(text, str) and text.strip():
            out[key] = text.strip()[:_TEXT_LIMIT]
    temperature = value.get("temperature")
    if isinstance(temperature, (int, float)) and not isinstance(temperature, bool) and 0 <= temperature <= 10:
        out["temperature"] = float(temperature)
    if isinstance(value.get("api_base_set"), bool):
        out["api_base_set"] = value["api_base_set"]
    return out if "model" in out else None


def card_llm(card: Mapping[str, Any]) -> dict[str, Any] | None:
    """The declaration in a card (as a JSON dict), or None."""
    capabilities = card.get("capabilities")
    extensions = capabilities.get("extensions") if isinstance(capabilities, Mapping) else None
    if not isinstance(extensions, Sequence) or isinstance(extensions, str):
        return None
    for ext in extensions:
        if isinstance(ext, Mapping) and ext.get("uri") == LLM_EXTENSION_URI:
            return sane_llm(ext.get("params"))
    return None


def reply_llm(data: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The declaration in a reply's data parts (the first ``"llm"``), or None."""
    for part in data:
        if isinstance(part, Mapping) and (found := sane_llm(part.get("llm"))) is not None:
            return found
    return None
