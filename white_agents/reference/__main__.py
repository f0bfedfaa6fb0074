"""``python -m white_agents.reference``."""

from green_agent.kit.process import apply_process_defaults

apply_process_defaults()  # before the server's imports bring in a2a-sdk: see green_agent/kit/process.py

import sys  # noqa: E402

from white_agents.reference.server import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
