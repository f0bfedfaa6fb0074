"""The FOLIO assessor plugin: config, tasks, answer parsing, engine, result artifact.

Module map (one concern each): ``config`` (the config model :class:`FolioConfig`), ``tasks`` (item →
outbound message), ``parsing`` (reply → label), ``engine`` (budgeted dispatch, outcomes, resume;
no a2a imports), ``artifact`` (result parts), ``assessor`` (the plugin: ``create``).
"""
