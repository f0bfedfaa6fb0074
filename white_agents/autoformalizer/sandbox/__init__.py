"""The sandbox that runs model-written programs: a supervisor (``runner``) and the child it starts, confined
by namespaces or Landlock + seccomp and a Python policy (docs/sandbox.md)."""
