"""``python -m green_agent``: the assessor agent's CLI and A2A app.

The assessor is a plugin chosen with ``--assessor``: a short name from :data:`ASSESSORS` or a
``package.module:factory`` path, so a new benchmark plugs in without touching this file.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
from pathlib import Path

from starlette.applications import Starlette

from green_agent.executor import AssessmentExecutor
from green_agent.protocol import Assessor, AssessorContext, AssessorFactory
from green_agent.serving import add_server_args, agent_card, build_app, card_url_from_args, serve, skill

ASSESSORS: dict[str, str] = {
    "folio": "green_agent.folio.assessor:create",
    "anomaly": "green_agent.anomaly.assessor:create",
}
"""Built-in assessor plugins: name -> ``module:factory``."""


class PluginError(Exception):
    """The ``--assessor`` value does not name a loadable plugin."""


def load_assessor(spec: str, context: AssessorContext) -> Assessor:
    """Resolve a plugin name or ``module:factory`` path and build the assessor."""
    target = ASSESSORS.get(spec, spec)
    module_name, _, attr = target.partition(":")
    if not attr:
        raise PluginError(f"unknown assessor {spec!r}: use one of {', '.join(ASSESSORS)} or 'module:factory'")
    try:
        factory: AssessorFactory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise PluginError(f"cannot load assessor {spec!r} ({target}): {exc}") from None
    return factory(context)


def unwritable_run_dir(run_dir: Path) -> str | None:
    """Why journals cannot be written under ``run_dir`` (one line), or None.

    Checked at start-up so a non-root container with a read-only working directory fails at once
    with a clear message, not at the first finished item of an assessment.
    """
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=run_dir):
            pass
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        return (
            f"run directory {str(run_dir)!r} is not writable ({reason}); set --run-dir or AGENTBEATS_RUN_DIR"
        )
    return None


def create_app(assessor: Assessor, card_url: str) -> Starlette:
    """The green agent's A2A app for ``assessor``, advertising ``card_url``."""
    card = agent_card(
        name=f"agentified-assessment green agent ({assessor.name})",
        description=(
            'Assessor (green) agent: send {"participants": {role: url}, "config": {...}}; it assesses every '
            "participant over A2A with budgets, strict answer parsing and structured failures, and returns a "
            "'Result' artifact."
        ),
        url=card_url,
        skills=[
            skill(
                id=f"assess-{assessor.name}",
                name=f"Assess agents on {assessor.name}",
                description="Runs an AgentBeats assessment and returns per-participant scores.",
                tags=["assessment", "agentbeats", assessor.name],
                examples=['{"participants": {"agent": "http://127.0.0.1:9019"}, "config": {}}'],
            )
        ],
    )
    return build_app(AssessmentExecutor(assessor), card)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m green_agent", description=__doc__.splitlines()[0])
    add_server_args(parser, default_port=9009)
    parser.add_argument(
        "--run-dir",
        type=Path,
        default=Path(os.environ.get("AGENTBEATS_RUN_DIR", "runs")),
        help="where per-assessment journals are kept for resume (default: $AGENTBEATS_RUN_DIR or ./runs)",
    )
    parser.add_argument(
        "--assessor",
        default=os.environ.get("GREEN_AGENT_ASSESSOR", "folio"),
        help=f"assessor plugin: {', '.join(ASSESSORS)} or module:factory (default: %(default)s)",
    )
    parser.add_argument(
        "--manifest-only",
        action="store_true",
        default=os.environ.get("GREEN_AGENT_MANIFEST_ONLY", "") not in ("", "0"),
        help="accept only datasets named in the manifest, never file paths or data dirs from a request "
        "(for public deployments; env GREEN_AGENT_MANIFEST_ONLY=1)",
    )
    args = parser.parse_args(argv)
    problem = unwritable_run_dir(args.run_dir)
    if problem:
        print(f"green_agent: error: {problem}", file=sys.stderr)
        return 2
    try:
        context = AssessorContext(run_dir=args.run_dir, manifest_only=args.manifest_only)
        assessor = load_assessor(args.assessor, context)
    except PluginError as exc:
        print(f"green_agent: error: {exc}", file=sys.stderr)
        return 2
    serve(
        create_app(assessor, card_url_from_args(args)),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
    )
    return 0
