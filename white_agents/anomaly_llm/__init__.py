"""LLM participant for the anomaly scenario (``python -m white_agents.anomaly_llm --model M``)."""
