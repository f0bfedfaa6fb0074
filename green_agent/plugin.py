"""The public plugin API: everything a benchmark plugin imports, from this one module.

A plugin (``folio``, ``anomaly``, a third party's package) is a :class:`UnitPlugin` served by
:class:`UnitAssessor`, registered as a :class:`Plugin` with its :class:`ResultDeclaration`, and
configured by a model extending :class:`RunConfig` (or :class:`ShardedConfig`). The names below are
re-exported from the core and the A2A kit, whose module layout may change; this list is what stays
(docs/architecture.md, Plugin contract and Adding a benchmark).
"""

from __future__ import annotations

from green_agent.core.config import (
    KEEP_INT,
    UNIQUE,
    Concurrency,
    ConfigModel,
    Number,
    ResponseBytes,
    Retries,
    RunConfig,
    ShardedConfig,
    Timeout,
    schema_command,
    schema_config,
    validate_config,
)
from green_agent.core.contract import (
    AssessmentRequest,
    AssessmentResult,
    Assessor,
    AssessorContext,
    ParticipantPart,
    ProgressCallback,
    RequestError,
)
from green_agent.core.declaration import (
    FailureTally,
    Metric,
    ReportSection,
    ResultDeclaration,
    ResultView,
    fmt,  # the report's number formats, for a section's cells (the generated plugin's report)
    plots,  # the report's figures (lines, grouped bars...), drawn from a section's own numbers
)
from green_agent.core.declaration.blocks import Block, Cell, Figure, Table, Text
from green_agent.core.declaration.hints import (
    answer_hint,  # the advice for a FOLIO-shaped task's failures (FOLIO's and the generated plugin's)
)
from green_agent.core.declaration.resumed import resume_lines  # the summary's "resumed n of m" lines
from green_agent.core.identity import assessment_id
from green_agent.core.registry import Plugin
from green_agent.core.runner import UnitAssessor
from green_agent.core.schemas import load_schema
from green_agent.core.scoring.metrics import summarize_items
from green_agent.core.scoring.repro import reproducibility_block
from green_agent.core.units import (
    AssessUnit,
    FinishedRun,
    Participant,
    ProgressView,
    RoleRun,
    RunPlan,
    RunSettings,
    UnitPlugin,
    record_schema,
)
from green_agent.kit.client.calls import Budget, CallResult, call_participant
from green_agent.kit.client.messages import OutboundMessage, Reply, Transport, TransportError

__all__ = [
    "KEEP_INT",
    "UNIQUE",
    "AssessUnit",
    "AssessmentRequest",
    "AssessmentResult",
    "Assessor",
    "AssessorContext",
    "Block",
    "Budget",
    "CallResult",
    "Cell",
    "Concurrency",
    "ConfigModel",
    "FailureTally",
    "Figure",
    "FinishedRun",
    "Metric",
    "Number",
    "OutboundMessage",
    "Participant",
    "ParticipantPart",
    "Plugin",
    "ProgressCallback",
    "ProgressView",
    "Reply",
    "ReportSection",
    "RequestError",
    "ResponseBytes",
    "ResultDeclaration",
    "ResultView",
    "Retries",
    "RoleRun",
    "RunConfig",
    "RunPlan",
    "RunSettings",
    "ShardedConfig",
    "Table",
    "Text",
    "Timeout",
    "Transport",
    "TransportError",
    "UnitAssessor",
    "UnitPlugin",
    "answer_hint",
    "assessment_id",
    "call_participant",
    "fmt",
    "load_schema",
    "plots",
    "record_schema",
    "reproducibility_block",
    "resume_lines",
    "schema_command",
    "schema_config",
    "summarize_items",
    "validate_config",
]
