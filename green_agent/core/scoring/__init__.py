"""Scoring at run time: per-item metrics, intervals and tests, paired comparisons, reproducibility."""

from green_agent.core.scoring.metrics import summarize_items
from green_agent.core.scoring.stats import bootstrap_diff_ci, mcnemar_exact, percentile, wilson_interval

__all__ = ["bootstrap_diff_ci", "mcnemar_exact", "percentile", "summarize_items", "wilson_interval"]
