"""The A2A kit: what every agent of ours shares to call and to serve A2A. Imports nothing else of ours.

``client/`` calls participants within a budget; ``server/`` serves one agent behind request limits.
"""
