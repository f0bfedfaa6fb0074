"""``python -m white_agents.reference``."""

from white_agents.reference.server import main

if __name__ == "__main__":
    main()
