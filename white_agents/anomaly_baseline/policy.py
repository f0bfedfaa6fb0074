"""The baseline's rules: read every segment, query the knowledge base once per segment, then check
numbers (totals that do not add up, quantities the knowledge base contradicts, implausible values),
years (event order, knowledge-base dates), negations between restated sentences, roles, and fallacy
cue phrases; report at most ``MAX_REPORTS`` findings and finalize. Deterministic, no LLM.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

MAX_REPORTS = 4
_NUM = re.compile(r"(?<![\w.])(-?\d{1,3}(?:,\d{3})+|-?\d+)(?:[- ]([a-z]+(?:/[a-z])?))?")
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_WORD = re.compile(r"[a-z]+")
_NEGATION = re.compile(r"\b(not|never|no|nobody|none|without)\b|n't\b")
_ROLE_AFTER = re.compile(
    r"((?:[A-Z][a-z.]+ )*[A-Z][a-z]+|the [a-z]+ [a-z]+(?: [a-z]+)?), the ([a-z' -]+?)[,.;]"
)
_FALLACY = (
    "must have been because",
    "so clearly",
    "everyone we asked",
    "so it must be true",
    "no other possibility",
    "therefore the first must have caused",
)
_ORIGIN = (
    "built",
    "founded",
    "opened",
    "began",
    "first",
    "sold",
    "charter",
    "designed",
    "released",
    "awarded",
)
_LATER = (
    "closed",
    "dissolved",
    "automated",
    "museum",
    "widened",
    "revised",
    "updated",
    "installed",
    "published",
)
_LIMITS = {
    "km/h": 400,
    "minutes": 1440,
    "hours": 500,
    "days": 400,
    "years": 125,
    "grams": 50000,
    "kilograms": 1000,
    "centimetres": 10000,
    "degrees": 1000,
    "metres": 100000,
}
"""Commonsense ceilings for values written with these units."""
Finding = tuple[str, str, str, list[str]]
"""What a rule found: (segment id, anomaly type, description, evidence)."""
_STOP = set(
    [
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "on",
        "and",
        "or",
        "at",
        "by",
        "for",
        "with",
        "was",
        "were",
        "is",
        "are",
        "it",
        "its",
        "that",
        "this",
        "as",
        "from",
    ]
)


def _value(text: str) -> int:
    return int(text.replace(",", ""))


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def numbers(text: str) -> list[tuple[int, str]]:
    """(value, unit word) pairs, years excluded."""
    out = []
    for raw, unit in _NUM.findall(text):
        if _YEAR.fullmatch(raw):
            continue
        out.append((_value(raw), unit or ""))
    return out


class BaselinePolicy:
    """Per-episode state of the rule-based agent."""

    def __init__(self) -> None:
        self.segment_ids: list[str] = []
        self.texts: dict[str, str] = {}
        self.facts: dict[str, dict[str, str]] = {}
        self.queued: list[dict[str, Any]] | None = None
        self.queried = False
        self.reported = False
        self.reports: list[dict[str, Any]] = []

    async def act(self, text: str, data: dict[str, Any]) -> dict[str, Any]:
        self._absorb(data)
        steps_left = int(data.get("budget_left", {}).get("steps", 40))
        if not self.segment_ids:
            total = int(data.get("segments_total", 0)) or len(data.get("outline", []))
            self.segment_ids = [f"S{i}" for i in range(1, total + 1)]
        if steps_left <= 1:
            return {"action": "FINALIZE"}
        unread = [s for s in self.segment_ids if s not in self.texts]
        if unread and steps_left > 2:
            return {"action": "REQUEST_CONTEXT", "segment_id": unread[0]}
        if self.queued is None:
            spare = steps_left - MAX_REPORTS - 1
            self.queued = [
                {"action": "QUERY_KNOWLEDGE", "query": self.texts[s][:300]}
                for s in self.segment_ids
                if s in self.texts
            ][: max(0, spare)]
        if self.queued:
            return self.queued.pop(0)
        if not self.reported:
            self.reported = True
            self.reports = self.findings()[: max(0, steps_left - 1)]
        if self.reports:
            return self.reports.pop(0)
        return {"action": "FINALIZE"}

    def _absorb(self, data: dict[str, Any]) -> None:
        result = data.get("last_action_result") or {}
        if result.get("segment_id") and result.get("text"):
            self.texts[result["segment_id"]] = result["text"]
        for fact in result.get("facts", []) or []:
            self.facts[fact["fact_id"]] = fact

    # ----- the rules ------------------------------------------------------------------------
    def findings(self) -> list[dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for rule in (
            self._sums,
            self._fallacies,
            self._commonsense,
            self._kb_numbers,
            self._roles,
            self._years,
            self._negations,
        ):
            for seg, kind, why, evidence in rule():
                found.setdefault(
                    seg,
                    {
                        "action": "REPORT_ANOMALY",
                        "segment_id": seg,
                        "type": kind,
                        "description": why,
                        "evidence": evidence,
                    },
                )
        ordered = sorted(found.values(), key=lambda r: int(r["segment_id"][1:]))
        return ordered[:MAX_REPORTS]

    def _sums(self) -> Iterator[Finding]:
        for seg, text in self.texts.items():
            if not re.search(r"\b(in all|in total|total)\b", text):
                continue
            values = [v for v, _ in numbers(text)]
            if len(values) >= 3 and not any(2 * v == sum(values) for v in values):
                yield seg, "numeric_change", f"the numbers {values} do not add up to the stated total", [seg]

    def _fallacies(self) -> Iterator[Finding]:
        for seg, text in self.texts.items():
            low = text.lower()
            cue = next((c for c in _FALLACY if c in low), None)
            if cue:
                yield seg, "logical_fallacy", f"fallacious inference ('{cue}')", [seg]

    def _commonsense(self) -> Iterator[Finding]:
        for seg, text in self.texts.items():
            for value, unit in numbers(text):
                limit = _LIMITS.get(unit)
                if limit is not None and abs(value) > limit:
                    yield seg, "commonsense", f"{value} {unit} is implausible", [seg]

    def _kb_numbers(self) -> Iterator[Finding]:
        for fact in self.facts.values():
            parts = fact["value"].replace(",", "").split()
            if len(parts) < 2 or not parts[0].lstrip("-").isdigit():
                continue
            true, unit = int(parts[0]), parts[1]
            subject = _content(fact["subject"]) | {unit}
            stated = {
                seg: [v for v, u in numbers(t) if u and unit.startswith(u[:4])]
                for seg, t in self.texts.items()
            }
            agreeing = [s for s, vals in stated.items() if true in vals]
            for seg, vals in stated.items():
                wrong = [v for v in vals if v != true and 0.3 <= v / true <= 3.5] if true else []
                if wrong and seg not in agreeing and len(_content(self.texts[seg]) & subject) >= 2:
                    kind = "numeric_change" if agreeing else "kb_contradiction"
                    yield (
                        seg,
                        kind,
                        f"{wrong[0]} {unit}, but {fact['subject']} has {fact['value']}",
                        [*agreeing, fact["fact_id"]],
                    )

    def _roles(self) -> Iterator[Finding]:
        roles = {
            f["subject"]: f["value"].lower()
            for f in self.facts.values()
            if f["attribute"] in ("role", "function")
        }
        for seg, text in self.texts.items():
            for name, role in _ROLE_AFTER.findall(text):
                known = roles.get(name)
                words = _content(role) - {"project", "new", "old"}
                if known is not None and words and not words & _content(known):
                    owner = next((n for n, r in roles.items() if words & _content(r)), "someone else")
                    yield seg, "entity_swap", f"{name} is called the {role}, a role of {owner}", [seg]

    def _years(self) -> Iterator[Finding]:
        origin: int | None = None
        for fact in self.facts.values():
            if _YEAR.fullmatch(fact["value"]):
                year = int(fact["value"])
                keys = [w for w in _content(fact["attribute"]) if w in _ORIGIN]
                for seg, text in self.texts.items():
                    low = text.lower()
                    for key in keys:
                        m = re.search(rf"\b{key}\b[^.]{{0,25}}?\b(1[0-9]{{3}}|20[0-9]{{2}})\b", low)
                        if m and int(m.group(1)) != year and _content(fact["subject"]) & _content(low):
                            yield (
                                seg,
                                "kb_contradiction",
                                f"{key} in {m.group(1)}, knowledge base says {year}",
                                [fact["fact_id"]],
                            )
                if any(w in _ORIGIN for w in _content(fact["attribute"])):
                    origin = year if origin is None else min(origin, year)
        for seg, text in self.texts.items():
            for sentence in re.split(r"(?<=[.;])\s", text):
                years = [int(y) for y in _YEAR.findall(sentence)]
                if len(years) >= 2 and re.search(r"\band\b|\bthen\b|;", sentence) and years[1] < years[0]:
                    yield (
                        seg,
                        "temporal",
                        f"{years[1]} comes after {years[0]} in the text but is earlier",
                        [seg],
                    )
                low = sentence.lower()
                if origin is not None and any(w in low for w in _LATER):
                    for y in years:
                        if y < origin:
                            yield seg, "temporal", f"{y} is before the origin year {origin}", [seg]

    def _negations(self) -> Iterator[Finding]:
        segs = list(self.texts)
        for i, a in enumerate(segs):
            for b in segs[i + 2 :]:
                ta, tb = self.texts[a], self.texts[b]
                shared = _content(ta) & _content(tb)
                if len(shared) < 4:
                    continue
                na, nb = len(_NEGATION.findall(ta.lower())), len(_NEGATION.findall(tb.lower()))
                if na != nb:
                    seg = a if na > nb else b
                    other = b if seg == a else a
                    yield seg, "negation", f"negates what {other} states", [other]
