"""Rendering: results.json read back and shown as terminal tables, Markdown and HTML (``agentbeats report``)."""
