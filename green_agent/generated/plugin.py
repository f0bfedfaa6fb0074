"""The generated-FOL plugin as the registry knows it (entry point ``generated`` in our pyproject).

Reports load this module for the declaration only, so the assessor (the generator, Z3) is imported
when the green agent builds it, not here.
"""

from __future__ import annotations

from typing import Any

from green_agent.generated.declaration import DECLARATION
from green_agent.plugin import Assessor, AssessorContext, Plugin


def create(context: AssessorContext) -> Assessor[Any]:
    """The generated-FOL assessor (:func:`green_agent.generated.assessor.create`)."""
    from green_agent.generated.assessor import create as create_generated

    return create_generated(context)


PLUGIN = Plugin(name="generated", factory=create, declaration=DECLARATION)
