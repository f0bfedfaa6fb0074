"""``python -m green_agent.generated``: the generator's command line (``generate``)."""

from green_agent.generated.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
