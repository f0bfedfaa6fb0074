"""agentified-assessment: the green (assessor) agent, its assessor plugins and tools."""

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("agentified-assessment")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"

from green_agent.ast_guard import install as _guard_ast

_guard_ast()  # every process of ours parses in threads: see green_agent/ast_guard.py
