"""The anomaly-detection plugin as the registry knows it (entry point ``anomaly`` in our pyproject).

Reports load this module for the declaration only; the assessor is imported when the green agent
builds it.
"""

from __future__ import annotations

from typing import Any

from green_agent.anomaly.declaration import DECLARATION
from green_agent.plugin import Assessor, AssessorContext, Plugin


def create(context: AssessorContext) -> Assessor[Any]:
    """The anomaly assessor (:func:`green_agent.anomaly.assessor.create`)."""
    from green_agent.anomaly.assessor import create as create_anomaly

    return create_anomaly(context)


PLUGIN = Plugin(name="anomaly", factory=create, declaration=DECLARATION)
