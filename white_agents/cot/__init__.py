"""Chain-of-thought white agent: the LLM reasons step by step and ends with ``Answer: X``."""

from white_agents.cot.agent import CotAgent, create_app

__all__ = ["CotAgent", "create_app"]
