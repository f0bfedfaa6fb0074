"""``python -m white_agents.autoformalizer.sandbox FILE``: run one program in the sandbox (docs/sandbox.md)."""

from white_agents.autoformalizer.sandbox.runner import main

if __name__ == "__main__":
    raise SystemExit(main())
