"""``python -m green_agent.folio``: the ``folio`` command (verify, clean, variants, ...)."""

from green_agent.folio.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
