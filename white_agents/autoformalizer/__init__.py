"""Auto-formalization white agent: an LLM formalizes the problem (Z3Py, run in a sandbox, or FOL lines),
our trusted code decides with Z3, and errors are fed back for self-repair.

Kept import-light so ``white_agents.autoformalizer.sandbox.runner`` can be used on its own; the agent lives in
:mod:`white_agents.autoformalizer.agent`.
"""
