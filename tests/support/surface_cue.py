"""A participant that answers from a memorised surface cue: the label it saw for a conclusion with the
same words. It scores well on the originals and fails where a proved variant changes the label but not
the words (negate), which is what the robustness measures are for (docs/variants.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from green_agent.folio.datasets.items import FolioItem

CUE_IGNORES = {"it", "is", "not", "the", "case", "that", "a", "an", "does", "do"}
"""Words the cue participant ignores: it keys on the conclusion's remaining words."""


def cue_key(conclusion: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", conclusion.lower())) - CUE_IGNORES


def surface_cue_participant(items: Iterable[FolioItem]) -> Callable[[str, Mapping[str, Any]], list[Any]]:
    """Answers the label it memorised for a conclusion with the same words, else Uncertain."""
    memory = {cue_key(it.conclusion): it.label for it in items}

    def reply(text: str, data: Mapping[str, Any]) -> list[Any]:
        label = memory.get(cue_key(str(data.get("conclusion", ""))), "Uncertain")
        return [f"Answer: {label}", {"label": label}]

    return reply
