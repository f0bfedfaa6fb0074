"""Reference white agent: decides FOLIO items from the gold FOL the assessor exposes, with Z3.

It is an upper-bound baseline for the assessment (how well the *gold FOL* proves the gold labels), not
a reasoner over natural language: without ``premises_fol``/``conclusion_fol`` in the task it fails the
task. It never guesses: an inconsistent or undecided problem fails the task too.

Import-light (the agent lives in :mod:`white_agents.reference.agent`): ``python -m white_agents.reference``
imports this package before its ``__main__`` applies the process defaults, which must precede a2a-sdk's
import.
"""
