"""The FOLIO assessor plugin: config, tasks, answer parsing, engine, result artifact.

Module map (one concern each): ``config`` (the config model :class:`FolioConfig`), ``engine``
(budgeted dispatch, outcomes, resume; no a2a imports; the task message and the judgement of a reply are
the shared ones of ``green_agent.logic.tasks`` and ``green_agent.logic.judge``), ``artifact`` (result
parts), ``assessor`` (the plugin: ``create``).
"""
