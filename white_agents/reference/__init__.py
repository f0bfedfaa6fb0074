"""Reference white agent: decides FOLIO items from the gold FOL the assessor exposes, with Z3.

It is an upper-bound baseline for the assessment (how well the *gold FOL* proves the gold labels), not
a reasoner over natural language: without ``premises_fol``/``conclusion_fol`` in the task it fails the
task. It never guesses: an inconsistent or undecided problem fails the task too.
"""

from white_agents.reference.agent import ReferenceExecutor, TaskInputError, answer, read_task

__all__ = ["ReferenceExecutor", "TaskInputError", "answer", "read_task"]
