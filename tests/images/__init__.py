"""Building and smoke-testing the Docker images with a local engine, offline (``make images``,
``make images-smoke``; docs/agentbeats.md, "Building and smoke-testing the images offline").

Not part of ``make test``: they need a running container engine and take minutes. Only the pure planning
(tags, argument lists, messages) is tested, in ``tests/images/test_plan.py``.
"""
