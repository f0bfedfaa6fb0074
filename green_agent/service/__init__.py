"""The green agent as a service: its A2A executor, command line and admission of requests."""
