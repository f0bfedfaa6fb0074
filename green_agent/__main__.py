import sys

from green_agent.service.server import main

sys.exit(main())
