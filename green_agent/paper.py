"""``python -m green_agent.paper``: the documented command for the paper comparison, kept stable; the code
is :mod:`green_agent.folio.paper`."""

from green_agent.folio.paper import main

if __name__ == "__main__":
    raise SystemExit(main())
