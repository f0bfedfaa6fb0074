"""One episode's environment: what the agent sees, what each action does, what is recorded.

The environment is pure (no I/O, no clock): the episode runner feeds it actions, errors and transport
failures, and sends its observations. Feedback on hypotheses is graded against the planted anomalies:
``none`` (acknowledged only), ``neutral`` (honest hint) or ``misleading`` (the verdict is inverted with
probability :data:`MISLEAD_P`, seeded per episode, for the robustness pass).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from green_agent.anomaly.actions import ACTIONS, Action, mentioned_segments
from green_agent.anomaly.injection import TYPES, Injected, sid
from green_agent.anomaly.knowledge import KnowledgeBase

MISLEAD_P = 0.75
PREVIEW_WORDS = 6

VERDICTS = {
    "hit": "promising: a segment you name contains an anomaly",
    "near": "partly supported: a segment you name bears on an anomaly elsewhere",
    "miss": "not supported: no anomaly involves the segments you name",
}


@dataclass
class Hypothesis:
    """One graded hypothesis (proposed or tested)."""

    step: int
    segments: list[str]
    truth: str
    """``hit``, ``near`` or ``miss`` against the ground truth."""
    shown: str | None
    """Verdict shown to the agent (``None`` when feedback is off)."""

    @property
    def misled(self) -> bool:
        return self.shown is not None and (self.shown == "miss") != (self.truth == "miss")


@dataclass
class Environment:
    """State of one episode."""

    injected: Injected
    episode_id: str
    feedback: str = "neutral"
    max_steps: int = 40
    seed: str = "0"
    steps: int = 0
    seen: list[str] = field(default_factory=list)
    reports: list[dict[str, Any]] = field(default_factory=list)
    hypotheses: list[Hypothesis] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    trace: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(
        default_factory=lambda: {"timeout": 0, "runtime_error": 0, "invalid_action": 0}
    )
    redundant: int = 0
    last_result: dict[str, Any] | None = None
    end_reason: str | None = None

    def __post_init__(self) -> None:
        self.kb = KnowledgeBase(self.injected.document.facts)
        self._rng = random.Random(f"{self.seed}|feedback|{self.episode_id}")
        self._done_keys: set[str] = set()
        self._targets = {p.segment for p in self.injected.planted}
        self._evidence = {s for p in self.injected.planted for s in p.evidence} - self._targets

    # ----- what the agent sees -------------------------------------------------------------
    @property
    def n_segments(self) -> int:
        return len(self.injected.segments)

    @property
    def done(self) -> bool:
        return self.end_reason is not None

    def observation(self, *, seconds_left: float | None = None) -> tuple[str, dict[str, Any]]:
        """The next observation: a text for chat agents and the structured data part."""
        doc = self.injected.document
        data: dict[str, Any] = {
            "task": "anomaly",
            "episode_id": self.episode_id,
            "title": doc.title,
            "step": self.steps + 1,
            "max_steps": self.max_steps,
            "budget_left": {"steps": self.max_steps - self.steps},
            "segments_total": self.n_segments,
            "visible_segments": list(self.seen),
            "last_action_result": self.last_result,
            "allowed_actions": list(ACTIONS),
            "anomaly_types": list(TYPES),
        }
        if seconds_left is not None:
            data["budget_left"]["seconds"] = round(max(0.0, seconds_left), 1)
        if self.steps == 0:
            data["outline"] = [
                {"segment_id": sid(i), "preview": " ".join(t.split()[:PREVIEW_WORDS]) + " …"}
                for i, t in enumerate(self.injected.segments)
            ]
        return render_text(data), data

    # ----- what actions do -----------------------------------------------------------------
    def _remember(self, action: Action) -> bool:
        key = action.key()
        if action.name == "REPORT_ANOMALY":
            key = f"report|{action.args['segment_id']}|{action.args['type']}"
        repeated = key in self._done_keys
        self._done_keys.add(key)
        return repeated

    def _show(self, segment: str) -> dict[str, str]:
        if segment not in self.seen:
            self.seen.append(segment)
        return {"segment_id": segment, "text": self.injected.segments[int(segment[1:]) - 1]}

    def _grade(self, action: Action) -> dict[str, Any]:
        segments = sorted(mentioned_segments(action, self.n_segments), key=lambda s: int(s[1:]))
        truth = (
            "hit" if set(segments) & self._targets else "near" if set(segments) & self._evidence else "miss"
        )
        shown: str | None = None
        if self.feedback == "neutral":
            shown = truth
        elif self.feedback == "misleading":
            flip = self._rng.random() < MISLEAD_P
            shown = ("miss" if truth != "miss" else "hit") if flip else truth
        self.hypotheses.append(Hypothesis(self.steps, segments, truth, shown))
        if not segments and self.feedback != "none":
            return {"feedback": "name segment ids (S1, S2, ...) so the hypothesis can be graded"}
        return {"feedback": VERDICTS[shown] if shown else "noted"}

    def apply(self, action: Action) -> dict[str, Any]:
        """Carry out one valid action (one step) and return its result."""
        self.steps += 1
        name, args = action.name, action.args
        redundant = self._remember(action)
        result: dict[str, Any] = {"action": name, "ok": True}
        if name == "REQUEST_CONTEXT":
            redundant = args["segment_id"] in self.seen
            result.update(self._show(args["segment_id"]))
        elif name == "QUERY_KNOWLEDGE":
            answer = self.kb.query(args["query"])
            self.queries.append(
                {"step": self.steps, "query": args["query"], "facts": [f.id for f in answer.facts]}
            )
            result.update({"query": args["query"], **answer.as_dict()})
        elif name in ("PROPOSE_HYPOTHESIS", "TEST_HYPOTHESIS"):
            result.update(self._grade(action))
            test = args.get("test")
            if isinstance(test, dict):
                result["segments"] = [self._show(s) for s in test["compare"]]
        elif name == "REPORT_ANOMALY":
            report = {"step": self.steps, **args, "duplicate": redundant}
            self.reports.append(report)
            result.update({"recorded": True, "report_number": len(self.reports)})
        elif name == "FINALIZE":
            self.end_reason = "finalized"
        if redundant:
            self.redundant += 1
            result["note"] = "repeated action"
        self._log(name, ok=True, redundant=redundant)
        self.last_result = result
        self._check_budget()
        return result

    def invalid(self, kind: str, message: str, raw: Any = None) -> dict[str, Any]:
        """An unparseable or invalid reply: recorded, answered with an error, the episode goes on."""
        self.steps += 1
        self.counts["invalid_action"] += 1
        self.last_result = {"action": None, "ok": False, "error": kind, "message": message}
        self._log(None, ok=False, error=kind, detail=message, raw=str(raw)[:300] if raw is not None else None)
        self._check_budget()
        return self.last_result

    def failure(self, status: str, kind: str | None, detail: str | None) -> None:
        """A turn that got no reply (``timeout`` or ``runtime_error``)."""
        self.steps += 1
        self.counts[status] += 1
        self.last_result = {"action": None, "ok": False, "error": status, "message": detail or status}
        self._log(None, ok=False, error=status, detail=f"{kind}: {detail}")
        self._check_budget()

    def end(self, reason: str) -> None:
        if self.end_reason is None:
            self.end_reason = reason

    def _check_budget(self) -> None:
        if self.end_reason is None and self.steps >= self.max_steps:
            self.end_reason = "max_steps"

    def _log(self, action: str | None, **info: Any) -> None:
        self.trace.append(
            {"step": self.steps, "action": action, **{k: v for k, v in info.items() if v is not None}}
        )


def render_text(data: dict[str, Any]) -> str:
    """The observation as plain text a chat agent can act on."""
    lines = [
        f"Anomaly hunt — document: {data['title']!r} ({data['segments_total']} segments), "
        f"step {data['step']} of {data['max_steps']}.",
        "Find passages that are inconsistent with other passages, with the knowledge base, with commonsense "
        f"or with logic. Anomaly types: {', '.join(data['anomaly_types'])}.",
    ]
    if "outline" in data:
        lines.append("Outline:")
        lines += [f"  {o['segment_id']}: {o['preview']}" for o in data["outline"]]
    if data["visible_segments"]:
        lines.append(f"Segments you have read: {', '.join(data['visible_segments'])}.")
    result = data.get("last_action_result")
    if result:
        lines.append(f"Result of your last action: {result}")
    lines.append("Reply with exactly one action as a JSON object, one of:")
    lines += [f"  {example}" for example in ACTIONS.values()]
    return "\n".join(lines)
