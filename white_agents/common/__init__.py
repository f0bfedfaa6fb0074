"""Scaffolding shared by the LLM white agents: LLM settings and calls, task parsing, A2A executor, main.

Importing this package does not import litellm (see :mod:`white_agents.common.llm`).
"""

from white_agents.common.llm import (
    ConfigError,
    LLMError,
    LLMReply,
    LLMSettings,
    MeteredLLMClient,
    Usage,
    add_llm_args,
    load_litellm,
    settings_from_args,
)
from white_agents.common.task import (
    LABELS,
    AgentFailure,
    Answer,
    FolioTask,
    TaskFormatError,
    final_answer_label,
    parse_task,
)

__all__ = [
    "LABELS",
    "AgentFailure",
    "Answer",
    "ConfigError",
    "FolioTask",
    "LLMError",
    "LLMReply",
    "LLMSettings",
    "MeteredLLMClient",
    "TaskFormatError",
    "Usage",
    "add_llm_args",
    "final_answer_label",
    "load_litellm",
    "parse_task",
    "settings_from_args",
]
