"""``python -m green_agent.healthcheck``: the images' health check command, kept stable; the code is
:mod:`green_agent.kit.server.healthcheck` (standard library only)."""

from green_agent.kit.server.healthcheck import main

if __name__ == "__main__":
    raise SystemExit(main())
