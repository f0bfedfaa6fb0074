"""Deterministic, LLM-free participant for the anomaly scenario (``python -m white_agents.anomaly_baseline``)."""
