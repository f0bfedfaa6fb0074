"""The ``agentbeats`` harness: run a scenario's agents locally and collect the results (scenario-agnostic).

Modules: ``scenario`` (load and validate), ``processes`` (ports, start, cards, stop), ``client``
(request and stream folding), ``display`` (live progress, results table), ``cli`` (orchestration),
``leaderboard`` and ``leaderboard_queries`` (a folder of results through a scenario's leaderboard queries).
"""
