"""The anomaly plugin: plan episodes, run them over A2A (one context each), score, journal.

``validate`` checks the config and plans every episode (document, index, depth, feedback pass);
the shared unit runner (:class:`~green_agent.plugin.UnitAssessor`) serves :class:`AnomalyPlugin`
with the episodes as units: it plays each participant's episodes with bounded concurrency. A turn
goes through :func:`~green_agent.plugin.call_participant`, so timeouts and runtime errors follow the shared
taxonomy; ``max_consecutive_failures`` failed turns in a row end the episode. Finished episodes are
journaled as they complete; a request with ``resume`` continues the journal of an identical earlier
run against the same agents (same cards), and says which episodes it took from there.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from green_agent.anomaly.actions import ActionError, parse
from green_agent.anomaly.config import AnomalyConfig, JudgeEndpoint, judge_from_env, parse_config
from green_agent.anomaly.documents import Document, DocumentError, documents_hash, load_documents
from green_agent.anomaly.environment import Environment
from green_agent.anomaly.injection import inject
from green_agent.anomaly.metrics import episode_record, scored_reports, summarize
from green_agent.anomaly.spend import add_usage, participant_llm, participant_usage, turn_usage
from green_agent.core.declaration.resumed import resume_lines
from green_agent.plugin import (
    AssessmentRequest,
    AssessorContext,
    AssessUnit,
    FinishedRun,
    OutboundMessage,
    Participant,
    ParticipantPart,
    RequestError,
    RoleRun,
    RunPlan,
    Transport,
    UnitAssessor,
    UnitPlugin,
    assessment_id,
    call_participant,
    load_schema,
)

JOURNAL_SCHEMA = load_schema("green_agent.anomaly", "anomaly-journal")
"""Schema every journaled episode is validated against before it is resumed."""


@dataclass(frozen=True)
class EpisodeSpec:
    """One planned episode."""

    episode_id: str
    document: str
    index: int
    depth: str
    feedback: str


@dataclass(frozen=True)
class Plan(RunPlan[AnomalyConfig]):
    """A validated request: every planned episode (its ``identity`` adds the judge and the documents)."""

    documents: dict[str, Document]
    episodes: tuple[EpisodeSpec, ...]
    judge: JudgeEndpoint | None
    """The operator's judge, or None (reports then match by segment and type only)."""


def plan_episodes(config: AnomalyConfig, docs: dict[str, Document]) -> list[EpisodeSpec]:
    """Episodes in a stable order; depths assigned round-robin from a seeded offset; the first
    ``num_instances`` kept (run-wide, as AgentBeats defines it); then sharded."""
    offset = random.Random(f"{config.seed}|depths").randrange(len(config.depths))
    specs: list[EpisodeSpec] = []
    k = 0
    for doc_id in docs:
        for i in range(config.episodes_per_document):
            depth = config.depths[(k + offset) % len(config.depths)]
            k += 1
            for feedback in config.feedback_passes():
                specs.append(EpisodeSpec(f"{doc_id}-{i}", doc_id, i, depth, feedback))
    if config.num_instances is not None:
        specs = specs[: config.num_instances]
    return [s for n, s in enumerate(specs) if n % config.num_shards == config.shard_index]


class AnomalyPlugin(UnitPlugin[Plan, EpisodeSpec, dict[str, Any]]):
    """Multi-turn text-anomaly detection: the green agent as an environment."""

    name = "anomaly"
    journal_schema = JOURNAL_SCHEMA
    unit_noun = "episodes"

    def __init__(self, judge: JudgeEndpoint | None = None) -> None:
        self.judge = judge

    def validate(self, request: AssessmentRequest) -> Plan:
        config = parse_config(request.config)
        try:
            available = load_documents()
        except (DocumentError, OSError, ValueError) as exc:
            raise RequestError("config.documents", f"documents could not be loaded: {exc}") from None
        if config.documents == "all":
            docs = available
        else:
            unknown = [d for d in config.documents if d not in available]
            if unknown:
                raise RequestError(
                    "config.documents", f"unknown document {unknown[0]!r} (known: {', '.join(available)})"
                )
            docs = {d: available[d] for d in config.documents}
        episodes = tuple(plan_episodes(config, docs))
        judge = self.judge.identity() if self.judge else {"judge_model": None, "judge_api_base": None}
        assessment = assessment_id(
            "anomaly", request.participants, {**config.identity(), **judge}, documents_hash(docs.values())
        )
        participants = dict(request.participants)
        return Plan(participants, config, assessment, request.principal, docs, episodes, self.judge)

    def units(self, plan: Plan) -> tuple[EpisodeSpec, ...]:
        return plan.episodes

    def unit_key(self, unit: EpisodeSpec) -> str:
        return _key(unit.episode_id, unit.feedback)

    def participant(self, plan: Plan, who: Participant) -> AssessUnit[EpisodeSpec, dict[str, Any]]:
        async def play(spec: EpisodeSpec) -> dict[str, Any]:
            return await run_episode(who.transport, who.url, who.role, spec, plan)

        return play

    def record_key(self, record: Mapping[str, Any]) -> tuple[str, str]:
        return record["role"], _key(record["episode_id"], record["feedback"])

    def participant_fields(
        self, plan: Plan, run: FinishedRun[EpisodeSpec, dict[str, Any]], role: RoleRun[dict[str, Any]]
    ) -> dict[str, Any]:
        records = [
            {**rec, "resumed": self.unit_key(spec) in role.resumed}
            for spec, rec in zip(run.units, role.outcomes, strict=True)
        ]
        part = summarize(role.role, records, primary=plan.config.primary_feedback, time_used=run.elapsed)
        if (llm := participant_llm(run.cards.get(role.role))) is not None:
            part["llm"] = llm
        if (usage := participant_usage(records, part["tp"])) is not None:
            part["usage"] = usage
        return part

    def summarise(
        self, plan: Plan, run: FinishedRun[EpisodeSpec, dict[str, Any]], parts: Sequence[ParticipantPart]
    ) -> tuple[str, list[dict[str, Any]]]:
        return summary_text(parts), []


def _key(episode_id: str, feedback: str) -> str:
    """An episode's unit key: one episode under one feedback mode."""
    return f"{episode_id}\x00{feedback}"


async def run_episode(
    transport: Transport, url: str, role: str, spec: EpisodeSpec, plan: Plan
) -> dict[str, Any]:
    """Play one episode in one A2A context and return its record."""
    config = plan.config
    injected = inject(
        plan.documents[spec.document],
        f"{config.seed}|{spec.index}",
        spec.depth,
        config.types,
        config.anomalies_per_episode,
    )
    env = Environment(injected, spec.episode_id, spec.feedback, config.max_steps, str(config.seed))
    context_id = uuid.uuid4().hex
    started = time.monotonic()
    deadline = started + config.episode_deadline_s
    failures_in_a_row = 0
    usage: dict[str, Any] | None = None
    while not env.done:
        now = time.monotonic()
        if now >= deadline:
            env.end("deadline")
            break
        text, data = env.observation(seconds_left=deadline - now)
        call = await call_participant(
            transport, url, OutboundMessage(text, data, context_id), config.budget(), deadline=deadline
        )
        usage = add_usage(usage, turn_usage(call.reply.data if call.reply is not None else call.data))
        if call.status != "ok" or call.reply is None:
            env.failure(call.status, call.kind, call.error)
            failures_in_a_row += 1
            if call.kind == "deadline":
                env.end("deadline")
            elif failures_in_a_row >= config.max_consecutive_failures:
                env.end("transport_failures")
            continue
        failures_in_a_row = 0
        reply = call.reply
        if reply.context_id and reply.context_id != context_id:
            context_id = reply.context_id
        try:
            action = parse(reply.text, reply.data, env.n_segments)
        except ActionError as exc:
            env.invalid(exc.kind, exc.message, raw=reply.text or reply.data)
            continue
        env.apply(action)
    accepted, judge_errors = await _judge(env, plan.judge, config) if plan.judge else (set(), [])
    return episode_record(
        env,
        accepted=accepted,
        **({"judge_errors": judge_errors} if plan.judge else {}),
        **({"usage": usage} if usage is not None else {}),
        role=role,
        index=spec.index,
        depth=spec.depth,
        context_id=context_id,
        time_s=round(time.monotonic() - started, 3),
    )


async def _judge(
    env: Environment, endpoint: JudgeEndpoint, config: AnomalyConfig
) -> tuple[set[tuple[int, str]], list[dict[str, Any]]]:
    """Judge-approved (report, planted) pairs, and the pairs the judge gave no verdict on (why)."""
    from green_agent.anomaly.judge import Judge, judge_settings

    judge = Judge(judge_settings(endpoint.model, endpoint.api_base, config.timeout_s))
    accepted: set[tuple[int, str]] = set()
    errors: list[dict[str, Any]] = []
    for i, report in enumerate(scored_reports(env.reports)):
        for p in env.injected.planted:
            if p.segment != report["segment_id"] or p.type == report["type"]:
                continue
            verdict = await judge.verdict(p.description, report.get("description", ""))
            if verdict.accepted:
                accepted.add((i, p.id))
            if verdict.error is not None:
                errors.append({"report": i, "planted": p.id, "error": verdict.error})
    return accepted, errors


def summary_text(parts: Sequence[Mapping[str, Any]]) -> str:
    lines = ["Anomaly-detection assessment (multi-turn):"]
    for p in parts:
        failures = ", ".join(f"{k} {p[k]}" for k in ("timeout", "runtime_error", "invalid_action"))
        line = (
            f"- {p['role']}: F1 {p['f1']:.3f} (precision {p['precision']:.3f}, recall {p['recall']:.3f}) "
            f"over {p['episodes_total']} episodes, {p['tp']}/{p['planted']} anomalies found; {failures}"
        )
        if p.get("f1_drop_misleading") is not None:
            line += f"; F1 drop under misleading feedback {p['f1_drop_misleading']:+.3f}"
        lines.append(line)
    lines += [f"- {line}" for line in resume_lines(parts)]
    return "\n".join(lines)


def create(context: AssessorContext) -> UnitAssessor[Plan, EpisodeSpec, dict[str, Any]]:
    """Plugin factory (``--assessor anomaly``); the judge is the operator's (environment)."""
    return UnitAssessor(AnomalyPlugin(judge_from_env()), context)
