"""agentified-assessment: the green (assessor) agent, its assessor plugins and tools."""

import os

# a2a-sdk wraps its client and server calls in OpenTelemetry spans whenever opentelemetry-api is
# importable (an a2a-sdk dependency brings it in). With no tracer configured those spans record
# nothing, yet they cost about 4% of the instructions of every call; so they are off unless the
# environment turns them on (docs/hosting.md). This must run before a2a-sdk is first imported.
os.environ.setdefault("OTEL_INSTRUMENTATION_A2A_SDK_ENABLED", "false")

from green_agent.kit.ast_guard import install as _guard_ast

_guard_ast()  # every process of ours parses in threads: see green_agent/kit/ast_guard.py


def __getattr__(name: str) -> str:
    """``__version__``, looked up on first use: ``importlib.metadata`` costs ~20 ms of import, which
    every ``python -m green_agent.X`` (the image health check too) would otherwise pay."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("agentified-assessment")
    except PackageNotFoundError:  # running from a source tree that is not installed
        found = "0.0.0+local"
    globals()["__version__"] = found
    return found
