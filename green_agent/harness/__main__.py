import sys

from green_agent.harness.cli import main

sys.exit(main())
