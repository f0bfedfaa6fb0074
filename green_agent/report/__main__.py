"""``python -m green_agent.report RESULTS.json [--html OUT] [--markdown OUT]``."""

import sys

from green_agent.report.cli import main

sys.exit(main())
