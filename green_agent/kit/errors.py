"""The one base of every error we raise, and the three kinds its callers tell apart.

Callers branch on what went wrong, not on where: a request, config or reply that is wrong is refused
(the task ``rejected``, exit 2); a file that cannot be used is named and the command stops; something
missing now (a port, a program, a peer, the LLM, a free slot) fails the run or is tried again later.
Each error class names its kind as its first base; a built-in base it had (``ValueError``,
``RuntimeError``, ...) stays second, so every ``except`` written against it catches it as before.

At the bottom of the layers (the kit imports nothing of ours), so every package and the participants
can derive from it. Two kinds of class stand outside on purpose: a stop signal
(:class:`~green_agent.kit.stopping.Stopped`, a ``KeyboardInterrupt`` that ``except Exception`` must
not catch), and the errors of modules that run where this package does not exist, so import only the
standard library: the sandbox's Landlock and seccomp errors (its bootstrap imports them under
``python -I -S``) and the leaderboard's ``QueryError`` (``green_agent/harness/leaderboard_queries.py``
runs alone in a venv that has only DuckDB).
"""

from __future__ import annotations


class AssessmentError(Exception):
    """An error of ours: its message is one line a user can act on."""


class InputError(AssessmentError):
    """What we were handed is wrong — a request, a config, a command line's file or value, a
    participant's task or a model's reply: refuse it (task ``rejected``, exit 2) or report it;
    sending it again unchanged cannot help."""


class DataError(AssessmentError):
    """A file or data set we read is missing, unreadable or malformed (a dataset, a results file, a
    recording, a saved state): name it and stop (callers often catch it with ``OSError``)."""


class UnavailableError(AssessmentError):
    """Something needed is not there now — a port, a program, a peer, the LLM, a free slot: fail the
    run (exit 1), skip the step or try later; the request itself is not at fault."""
