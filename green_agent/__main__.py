import sys

from green_agent.server import main

sys.exit(main())
