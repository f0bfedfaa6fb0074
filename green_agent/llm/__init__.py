"""LLM access for every caller: one client, one settings type, one litellm import policy.

Importing this package never imports litellm (see :mod:`green_agent.llm.loader`).
"""

from green_agent.llm.client import LLMClient, LLMError, LLMReply, LLMSettings, Messages
from green_agent.llm.json_object import last_json_object
from green_agent.llm.loader import aload_litellm, load_litellm, set_litellm_log_level
from green_agent.llm.usage import Usage

__all__ = [
    "LLMClient",
    "LLMError",
    "LLMReply",
    "LLMSettings",
    "Messages",
    "Usage",
    "aload_litellm",
    "last_json_object",
    "load_litellm",
    "set_litellm_log_level",
]
