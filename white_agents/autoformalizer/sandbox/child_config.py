"""The JSON configuration the runner hands the sandbox's bootstrap (``child.py CONFIG_JSON``), typed once
for both sides. The bootstrap runs with the standard library's core only and imports this module for type
checking alone."""

from __future__ import annotations

from typing import Literal, TypedDict

Policy = Literal["on", "off"]
"""``off``: no static check and no audit hook (OS isolation only)."""
KernelLayers = Literal["off", "best-effort", "required"]
"""``off`` under namespaces; in the fallback ``required``, or ``best-effort`` for a weak sandbox."""


class RunConfig(TypedDict):
    """What the runner decides for one run (:func:`runner.run_sandboxed`)."""

    user_file: str
    policy: Policy
    allowed: list[str]
    preload: list[str]
    cpu_s: int
    memory_bytes: int
    file_bytes: int
    nofile: int
    nproc: int
    drop_uid: int | None
    supervise: bool
    unshare_net: bool
    kernel_layers: KernelLayers


class ChildConfig(RunConfig):
    """The bootstrap's argument: the run's settings plus where the child finds things."""

    control_fd: int
    """The write end of the control pipe (explanations only, never the status)."""
    z3_dir: str
    """The directory holding the ``z3`` package, as the child sees it."""
