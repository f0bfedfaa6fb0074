"""``python -m white_agents.reference``."""

from green_agent.kit.process import apply_process_defaults

apply_process_defaults()  # before the server's imports bring in a2a-sdk: see green_agent/kit/process.py

from white_agents.reference.server import main  # noqa: E402

if __name__ == "__main__":
    main()
