"""Serving one agent: the base task executor, app assembly, request and connection limits, tenancy, health."""
