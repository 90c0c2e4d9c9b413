"""Why a call read less of the cache than it could, in words: one line per `miss_cause`
value agent/modelcall/calls.py records (the /usage report's "misses", docs/CACHING.md)."""

from __future__ import annotations

#: Short human explanations of the `miss_cause` values agent/modelcall/calls.py records.
CAUSE_EXPLANATIONS: dict[str, str] = {
    "too_small": "prefix below the model's minimum cacheable size",
    "expired": "idle longer than the cache TTL; the prefix had to be written again",
    "model_changed": "the cache is per model",
    "tools_changed": "the tool definitions changed; everything after them was re-sent",
    "system_changed": "the system prompt changed (deliberate rebuild: /personality, compression)",
    "tool_choice_changed": "tool_choice changed; the messages were re-sent",
    "thinking_changed": "thinking or effort settings changed (/reasoning); the messages were "
                        "re-sent, tools and system still read from the cache",
    "messages_changed": "an earlier message differs from the previous request (history edited)",
    "prompt_cache_key_changed": "the prompt_cache_key changed (OpenAI caches per key)",
    "text_format_changed": "the response format changed; everything after it was re-sent",
    "verbosity_changed": "the verbosity setting changed; the messages were re-sent",
    "service_tier_changed": "the service tier changed (OpenAI caches per tier)",
    "previous_message_not_found": "the provider no longer knew the previous response",
    "unavailable": "the provider's cache was unavailable for this call",
    "unknown": "the prefix was unchanged but nothing was read: the provider dropped the "
               "entry before its TTL (evicted under load, or another server)",
    "partial": "only part of the previous request's cached prefix was read (evicted early, "
               "or a breakpoint beyond the provider's lookback)",
}
