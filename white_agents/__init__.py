"""Participants (white agents): each an A2A server answering assessment tasks."""

import green_agent  # noqa: F401  first: the process-wide defaults it sets must precede a2a-sdk's import
