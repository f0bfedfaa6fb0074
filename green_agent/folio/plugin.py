"""The FOLIO plugin as the registry knows it (entry point ``folio`` in our pyproject).

Reports load this module for the declaration only, so the assessor (datasets, variants, Z3) is
imported when the green agent builds it, not here.
"""

from __future__ import annotations

from typing import Any

from green_agent.folio.declaration import DECLARATION
from green_agent.plugin import Assessor, AssessorContext, Plugin


def create(context: AssessorContext) -> Assessor[Any]:
    """The FOLIO assessor (:func:`green_agent.folio.assessor.create`)."""
    from green_agent.folio.assessor import create as create_folio

    return create_folio(context)


PLUGIN = Plugin(name="folio", factory=create, declaration=DECLARATION)
