"""Reports and statistics over assessment results (metrics, paired comparison, HTML/Markdown)."""

from green_agent.report.metrics import summarize_items
from green_agent.report.stats import bootstrap_diff_ci, mcnemar_exact, percentile, wilson_interval

__all__ = ["bootstrap_diff_ci", "mcnemar_exact", "percentile", "summarize_items", "wilson_interval"]
