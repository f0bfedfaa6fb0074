"""Chain-of-thought white agent: the LLM reasons step by step and ends with ``Answer: X``.

Import-light (the agent lives in :mod:`white_agents.cot.agent`): ``python -m white_agents.cot`` imports
this package before its ``__main__`` applies the process defaults, which must precede a2a-sdk's import.
"""
