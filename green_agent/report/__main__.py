"""``python -m green_agent.report RESULTS.json [--html OUT] [--markdown OUT]``."""

import sys

from .cli import main

sys.exit(main())
