"""The generator's knobs, validated in one place: a bad value is one line that names the knob.

Values come from a command line or a request's JSON, so each knob takes the natural spellings:
``depth`` as ``3``, ``[1, 2, 5]``, ``"1-12"`` or ``"1-3,8"``; ``labels`` as ``"True,False"`` or
``"True:2,Uncertain:1"`` (weights) or a mapping; ``constructs`` as ``"universal,negation"`` or a list.
:func:`parse_knobs` turns pydantic's report into :class:`KnobError` (``depth: expected ...``).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from green_agent.kit.errors import InputError
from green_agent.logic.labels import LABELS

MAX_DEPTH = 12
"""The deepest proof chain (rule applications) a knob may ask for."""
MAX_DISTRACTORS = 20
"""The most distractor premises an item may have."""
MAX_COUNT = 100_000
"""The most items one set may have (what a budget allows is a separate check: ``budget``)."""
MAX_LABEL_WEIGHT = 20
"""The largest weight of one label in the ``labels`` mix."""

STEP_CONSTRUCTS: tuple[str, ...] = ("universal", "conjunction", "disjunction", "xor", "biconditional")
"""Constructs that shape a step of the proof chain (a rule)."""
CONSTRUCTS: tuple[str, ...] = (*STEP_CONSTRUCTS, "negation", "existential")
"""Every construct, in the order items and reports list them."""


class KnobError(InputError, ValueError):
    """A knob with a bad value; ``str()`` is one line starting with the knob's name."""

    def __init__(self, knob: str, message: str) -> None:
        self.knob = knob
        super().__init__(f"{knob}: {message}")


def _numbers(value: Any, low: int, high: int, what: str) -> tuple[int, ...]:
    """Whole numbers in ``[low, high]`` from a number, a list or a ``"a-b,c"`` string; sorted, unique."""
    expected = f"expected {what} from {low} to {high} (a number, a list, or a range like {low}-{high})"
    if isinstance(value, bool):
        raise ValueError(f"{expected}, got {value!r}")
    if isinstance(value, int):
        items: list[int] = [value]
    elif isinstance(value, str):
        items = []
        for part in value.split(","):
            m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
            if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
                raise ValueError(f"{expected}, got {value!r}")
            first, last = int(m.group(1)), int(m.group(2) or m.group(1))
            if last - first > high - low:
                raise ValueError(f"{expected}, got {value!r}")
            items += range(first, last + 1)
    elif isinstance(value, (list, tuple)) and value and all(type(v) is int for v in value):
        items = list(value)
    else:
        raise ValueError(f"{expected}, got {value!r}")
    if not items or any(not low <= v <= high for v in items):
        raise ValueError(f"{expected}, got {value!r}")
    return tuple(sorted(set(items)))


def _label_mix(value: Any) -> tuple[tuple[str, int], ...]:
    """(label, weight) pairs in the canonical label order, weights 1..MAX_LABEL_WEIGHT."""
    expected = (
        f"expected labels from {', '.join(LABELS)}, each at most once, optionally weighted "
        f"(True:2,Uncertain:1; weights 1-{MAX_LABEL_WEIGHT})"
    )
    pairs: list[tuple[Any, Any]]
    if isinstance(value, str):
        pairs = []
        for part in value.split(","):
            label, colon, weight = part.strip().partition(":")
            if colon and not weight.strip().isdigit():
                raise ValueError(f"{expected}, got {value!r}")
            pairs.append((label.strip(), int(weight) if colon else 1))
    elif isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, (list, tuple)):
        pairs = [(v, 1) for v in value]
    else:
        raise ValueError(f"{expected}, got {value!r}")
    names = [p[0] for p in pairs]
    if (
        not pairs
        or len(set(names)) != len(names)
        or any(n not in LABELS for n in names)
        or any(type(w) is not int or not 1 <= w <= MAX_LABEL_WEIGHT for _, w in pairs)
    ):
        raise ValueError(f"{expected}, got {value!r}")
    weights = dict(pairs)
    return tuple((label, weights[label]) for label in LABELS if label in weights)


def _construct_list(value: Any) -> tuple[str, ...]:
    expected = f"expected constructs from {', '.join(CONSTRUCTS)}"
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise ValueError(f"{expected}, got {value!r}")
    names = [i.strip() if isinstance(i, str) else i for i in items]
    unknown = [n for n in names if n not in CONSTRUCTS]
    if unknown:
        raise ValueError(f"{expected}, got {unknown[0]!r}")
    return tuple(c for c in CONSTRUCTS if c in names)


class Knobs(BaseModel):
    """What kind of items to generate (the seed is not a knob: it picks which items)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    count: int = Field(100, ge=1, le=MAX_COUNT, description="How many items.")
    depth: tuple[int, ...] = Field(
        tuple(range(1, MAX_DEPTH + 1)),
        description="Proof depths (rule applications from the facts to the conclusion), 1-12; "
        "items are spread evenly over them.",
    )
    distractors: tuple[int, ...] = Field(
        tuple(range(0, 9)), description="Distractor premises per item (0-20), drawn uniformly from these."
    )
    labels: tuple[tuple[str, int], ...] = Field(
        tuple((label, 1) for label in LABELS),
        description="The label mix: labels with weights; items follow it exactly in blocks.",
    )
    constructs: tuple[str, ...] = Field(CONSTRUCTS, description="The logical constructs items may use.")
    vocabulary: Literal["nonce", "everyday"] = Field(
        "nonce", description="Made-up words (nonce) or real ones (everyday)."
    )

    @field_validator("depth", mode="before")
    @classmethod
    def _depth(cls, value: Any) -> tuple[int, ...]:
        return _numbers(value, 1, MAX_DEPTH, "depths")

    @field_validator("distractors", mode="before")
    @classmethod
    def _distractors(cls, value: Any) -> tuple[int, ...]:
        return _numbers(value, 0, MAX_DISTRACTORS, "distractor counts")

    @field_validator("labels", mode="before")
    @classmethod
    def _labels(cls, value: Any) -> tuple[tuple[str, int], ...]:
        return _label_mix(value)

    @field_validator("constructs", mode="before")
    @classmethod
    def _constructs(cls, value: Any) -> tuple[str, ...]:
        return _construct_list(value)

    @model_validator(mode="after")
    def _coherent(self) -> Knobs:
        steps = [c for c in self.constructs if c in STEP_CONSTRUCTS]
        negation = "negation" in self.constructs
        if not steps:
            raise KnobError("constructs", f"needs at least one of {', '.join(STEP_CONSTRUCTS)}")
        if "xor" in steps and not negation:
            raise KnobError("constructs", "xor needs negation (an exclusive or is used with 'X is not ...')")
        if "existential" in self.constructs and steps == ["xor"]:
            raise KnobError("constructs", "existential needs a step construct other than xor")
        if any(label == "False" for label, _ in self.labels) and not negation:
            raise KnobError("labels", "False needs the negation construct (add it to constructs)")
        return self

    @property
    def label_block(self) -> tuple[str, ...]:
        """The labels of one block of items, each label as often as its weight."""
        return tuple(label for label, weight in self.labels for _ in range(weight))


def parse_knobs(**raw: Any) -> Knobs:
    """:class:`Knobs` from raw values; raises :class:`KnobError` (one line naming the knob)."""
    try:
        return Knobs(**raw)
    except KnobError:
        raise
    except ValidationError as exc:
        error = exc.errors()[0]
        knob = ".".join(str(part) for part in error["loc"]) or "knobs"
        cause = (error.get("ctx") or {}).get("error")
        if isinstance(cause, KnobError):
            raise cause from None
        if error["type"] == "extra_forbidden":
            raise KnobError(knob, f"unknown knob (known: {', '.join(Knobs.model_fields)})") from None
        message = str(cause) if cause is not None else error["msg"]
        raise KnobError(
            knob, f"{message}, got {error.get('input')!r}" if cause is None else message
        ) from None


def spell_numbers(values: tuple[int, ...]) -> str:
    """``(1, 2, 3, 5)`` → ``1-3,5``."""
    parts: list[str] = []
    start = prev = values[0]
    for v in (*values[1:], None):
        if v is not None and v == prev + 1:
            prev = v
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if v is not None:
            start = prev = v
    return ",".join(parts)


def knob_arguments(knobs: Knobs) -> list[str]:
    """The command-line arguments that ask for exactly ``knobs`` (every knob spelled out)."""
    labels = ",".join(label if weight == 1 else f"{label}:{weight}" for label, weight in knobs.labels)
    return [
        "--count",
        str(knobs.count),
        "--depth",
        spell_numbers(knobs.depth),
        "--distractors",
        spell_numbers(knobs.distractors),
        "--labels",
        labels,
        "--constructs",
        ",".join(knobs.constructs),
        "--vocabulary",
        knobs.vocabulary,
    ]
