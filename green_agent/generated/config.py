"""The generated benchmark's assessment config: one pydantic model that validates a request and states
its JSON Schema (docs/generated.md, Assessment).

The knobs are the generator's (:mod:`green_agent.generated.knobs`), in the spellings a JSON request
writes: ``depth`` and ``distractors`` as a number, a list of numbers or a range string (``"1-12"``,
``"1-3,8"``); ``labels`` as a list, a mapping of weights or a string (``"True:2,Uncertain:1"``);
``constructs`` as a list or a comma-separated string. The schema checks the shapes; :meth:`check` hands
the values to :func:`~green_agent.generated.parse_knobs`, whose one-line error becomes a
``RequestError`` naming the knob (``config.depth: ...``). The shipped
``green_agent/generated/schemas/generated-config.schema.json`` is generated from the model:
``python -m green_agent.generated.config --write``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from green_agent.generated import CONSTRUCTS, MAX_SEED, KnobError, Knobs, parse_knobs
from green_agent.generated.knobs import MAX_COUNT, MAX_DEPTH, MAX_DISTRACTORS, MAX_LABEL_WEIGHT
from green_agent.plugin import (
    KEEP_INT,
    UNIQUE,
    RequestError,
    ShardedConfig,
    schema_command,
    schema_config,
    validate_config,
)

SCHEMA_NAME = "generated-config"
SCHEMA_FILE = Path(__file__).parent / "schemas" / f"{SCHEMA_NAME}.schema.json"
"""The generated JSON Schema shipped for readers outside Python."""
NUMBERS = r"^\s*\d+\s*(-\s*\d+\s*)?(,\s*\d+\s*(-\s*\d+\s*)?)*$"
"""A range string: ``"3"``, ``"1-12"``, ``"1-3,8"``."""
SEED = r"^[0-9]{1,19}$"
"""A seed written as a string of digits (checked against 2^63-1 by :meth:`GeneratedConfig.check`)."""
LABEL_MIX = r"^\s*(True|False|Uncertain)\s*(:\s*\d+\s*)?(,\s*(True|False|Uncertain)\s*(:\s*\d+\s*)?)*$"
"""A label mix string: ``"True,False"``, ``"True:2,Uncertain:1"``."""

Label = Literal["True", "False", "Uncertain"]
Construct = Literal[
    "universal", "conjunction", "disjunction", "xor", "biconditional", "negation", "existential"
]
Depth = Annotated[int, Field(ge=1, le=MAX_DEPTH)]
Distractors = Annotated[int, Field(ge=0, le=MAX_DISTRACTORS)]
Weight = Annotated[int, Field(ge=1, le=MAX_LABEL_WEIGHT)]
Budget = Annotated[float, Field(gt=0, le=600), KEEP_INT]
"""Seconds of CPU a set may take to generate (one request's share of the green agent)."""


class GeneratedConfig(ShardedConfig):
    """The 'config' object of an AgentBeats request to the generated-FOL green agent (docs/generated.md)."""

    model_config = schema_config(
        "Generated FOL assessment config",
        "https://github.com/agentified-assessment/schemas/generated-config.schema.json",
    )

    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | Annotated[str, Field(pattern=SEED)] | None = None
    """The set's seed, 0 to 2^63-1, as a number or a string of digits (as results record it: a JSON number
    above 2^53 loses digits); absent: a fresh random one, recorded in the results (a never-seen set)."""
    count: Annotated[int, Field(ge=1, le=MAX_COUNT)] = 120
    """How many items to generate (the first num_instances of them when that is set)."""
    depth: (
        Depth | Annotated[tuple[Depth, ...], Field(min_length=1)] | Annotated[str, Field(pattern=NUMBERS)]
    ) = "1-12"
    """Proof depths, 1-12: a number, a list, or a range string ('1-12', '1-3,8'); spread evenly."""
    distractors: (
        Distractors
        | Annotated[tuple[Distractors, ...], Field(min_length=1)]
        | Annotated[str, Field(pattern=NUMBERS)]
    ) = "0-8"
    """Distractor premises per item, 0-20 (same spellings as depth), drawn uniformly."""
    labels: (
        Annotated[tuple[Label, ...], Field(min_length=1), UNIQUE]
        | Annotated[dict[Label, Weight], Field(min_length=1)]
        | Annotated[str, Field(pattern=LABEL_MIX)]
    ) = "True,False,Uncertain"
    """The label mix: a list of labels, a mapping label -> weight (1-20), or 'True:2,Uncertain:1'."""
    constructs: (
        Annotated[tuple[Construct, ...], Field(min_length=1), UNIQUE] | Annotated[str, Field(min_length=1)]
    ) = ",".join(CONSTRUCTS)
    """The logical constructs items may use: a list, or a comma-separated string."""
    vocabulary: Literal["nonce", "everyday"] = "nonce"
    """Made-up words (nonce) or real ones (everyday: a belief-bias test)."""
    prover: Literal["z3", "both"] = "z3"
    """Who proves every label: Z3, or Z3 and E (E must be installed on the green agent)."""
    generation_budget_s: Budget = 60
    """Estimated CPU seconds the set may take to generate; a larger set is refused before any work."""
    deadline_s: Annotated[float, Field(gt=0), KEEP_INT] | None = None
    """Budget of the whole run; items not finished by then are timeouts of kind 'deadline'."""
    expose_fol: bool = False
    """Also send the FOL of premises and conclusion (the reference agent needs it)."""

    @property
    def run_deadline_s(self) -> float | None:
        return self.deadline_s

    def knobs(self) -> Knobs:
        """The generator's knobs; :class:`RequestError` naming the knob when they do not fit together."""
        try:
            return parse_knobs(
                count=self.count,
                depth=list(self.depth) if isinstance(self.depth, tuple) else self.depth,
                distractors=list(self.distractors)
                if isinstance(self.distractors, tuple)
                else self.distractors,
                labels=list(self.labels) if isinstance(self.labels, tuple) else self.labels,
                constructs=list(self.constructs) if isinstance(self.constructs, tuple) else self.constructs,
                vocabulary=self.vocabulary,
            )
        except KnobError as exc:
            raise RequestError(f"config.{exc.knob}", str(exc).removeprefix(f"{exc.knob}: ")) from None

    def seed_value(self) -> int | None:
        """The seed as a number (``None``: draw a fresh one)."""
        return None if self.seed is None else int(self.seed)

    def check(self) -> None:
        super().check()
        seed = self.seed_value()
        if seed is not None and seed > MAX_SEED:
            raise RequestError("config.seed", f"{self.seed} is greater than the maximum of {MAX_SEED}")
        self.knobs()
        if self.num_shards > 1 and self.seed is None:
            raise RequestError(
                "config.seed", "a sharded run needs one: every shard must generate the same set"
            )


def parse_config(raw: Mapping[str, Any] | None) -> GeneratedConfig:
    """Validate ``raw`` and return the config; raise :class:`RequestError` naming the first bad field."""
    return validate_config(GeneratedConfig, raw)


if __name__ == "__main__":
    sys.exit(schema_command(GeneratedConfig, SCHEMA_FILE, sys.argv[1:]))
