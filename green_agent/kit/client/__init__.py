"""Calling participants: transport, budgets, bounded HTTP, connection pool, origin checks, cancel."""
