import sys

from green_agent.kit.process import apply_process_defaults

apply_process_defaults()  # before the server's imports bring in a2a-sdk: see green_agent/kit/process.py

from green_agent.service.server import main  # noqa: E402

sys.exit(main())
