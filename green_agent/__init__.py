"""agentified-assessment: the green (assessor) agent, its assessor plugins and tools.

Importing it changes nothing outside the package: the process-wide defaults (a2a-sdk tracing off,
the ``ast.parse`` lock where CPython needs it) are applied by each entry point, through
:func:`green_agent.kit.process.apply_process_defaults`.
"""


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
