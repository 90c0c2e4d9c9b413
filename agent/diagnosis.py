"""Why did a call miss the cache? Fingerprints of requests and a classifier.

Every call gets a fingerprint (hashes of model, tools, system, tool_choice, the thinking
settings and each message's wire bytes). Comparing it with the previous call's names the first place the
prefix changed; the provider's own diagnosis (Anthropic `cache_miss_reason`), the idle
gap versus the TTL, and the model's minimum cacheable size explain the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.messages import Request, canonical_json
from agent.messages import short_sha as _sha
from agent.usage import Usage


@dataclass(frozen=True)
class Fingerprint:
    """Hashes of the parts of a request, in prefix order."""

    model: str
    tools: str
    system: str
    tool_choice: str
    messages: tuple[str, ...]
    thinking: str = ""  # thinking mode/budget and effort (agent.messages.Reasoning.key)

    def key(self) -> str:
        """A compact one-line form for the usage row."""
        return _sha(canonical_json([self.model, self.tools, self.system, self.tool_choice,
                                    list(self.messages), self.thinking]))


def fingerprint(request: Request) -> Fingerprint:
    """Fingerprint a neutral request (breakpoints excluded: they do not change bytes)."""
    tools = _sha("\n".join(t.canonical() for t in request.tools))
    system = _sha(canonical_json([b.text for b in request.system]))
    messages = tuple(m.digest for m in request.messages)  # each hashed once per message
    thinking = request.reasoning.with_effort(request.reasoning_effort).key()
    return Fingerprint(request.model, tools, system, request.tool_choice or "", messages, thinking)


def first_difference(previous: Fingerprint | None, current: Fingerprint) -> tuple[str, str] | None:
    """Name the first place `current` stops extending `previous`; None if it extends it."""
    if previous is None:
        return None
    if previous.model != current.model:
        return "model_changed", f"model {previous.model} -> {current.model}"
    if previous.tools != current.tools:
        return "tools_changed", "the tool definitions changed"
    if previous.system != current.system:
        return "system_changed", "the system prompt changed"
    if previous.tool_choice != current.tool_choice:
        return "tool_choice_changed", "tool_choice changed"
    if previous.thinking != current.thinking:
        return "thinking_changed", f"reasoning settings changed ({_settings(previous.thinking)} -> " \
            f"{_settings(current.thinking)})"
    for index, (old, new) in enumerate(zip(previous.messages, current.messages, strict=False)):
        if old != new:
            return "messages_changed", f"message {index} differs from the previous request"
    if len(current.messages) < len(previous.messages):
        return "messages_changed", f"history shortened to {len(current.messages)} messages"
    return None


def _settings(key: str) -> str:
    """"thinking=budget=8000;effort=high" -> "thinking budget=8000, effort high"."""
    thinking, _, effort = key.partition(";effort=")
    text = thinking.replace("thinking=", "thinking ", 1)
    return f"{text}, effort {effort}" if effort else text


@dataclass(frozen=True)
class Diagnosis:
    """The cause of a miss (None: no miss) and the tokens it cost."""

    cause: str | None
    detail: str | None = None
    missed_tokens: int | None = None


@dataclass(frozen=True)
class CacheFacts:
    """What the cache should have held for this call.

    `gap_seconds` since this model's previous call (None: first call), the message TTL,
    the estimated size of tools + system, the model's minimum cacheable size, the
    previous call's prompt tokens (what it wrote) and the provider's read granularity
    (`step`, 0 for exact breakpoint reads)."""

    gap_seconds: float | None
    ttl_seconds: int
    prefix_tokens: int
    min_tokens: int
    previous_prompt: int = 0
    step: int = 0


def diagnose(
    *,
    previous: Fingerprint | None,
    current: Fingerprint,
    usage: Usage,
    provider_reason: str | None,
    provider_missed: int | None,
    facts: CacheFacts,
) -> Diagnosis:
    """Classify one call. A first call that writes the cache is "cold", not a miss."""
    gap_seconds, ttl_seconds = facts.gap_seconds, facts.ttl_seconds
    prefix_tokens, min_tokens = facts.prefix_tokens, facts.min_tokens
    previous_prompt, step = facts.previous_prompt, facts.step
    if not usage.cache_known:
        return Diagnosis(None, "the provider reports no cache data")
    diff = first_difference(previous, current)
    if previous is None:  # first call of this process: the provider may still know why
        return _first_call(usage, provider_reason, provider_missed, facts)
    missed = provider_missed
    if diff is not None:
        cause, detail = diff
        return Diagnosis(cause, detail, missed if missed is not None else usage.prompt_tokens - usage.cache_read)
    expected = previous_prompt if previous_prompt >= min_tokens else 0
    if step:
        expected -= expected % step  # automatic caching reads whole steps only
    if usage.cache_read > 0 and usage.cache_read >= expected:
        return Diagnosis(None)  # the prefix only grew and the provider read all of it
    if usage.cache_read > 0:  # a partial read: part of the previous prefix was lost
        lost = expected - usage.cache_read
        if gap_seconds is not None and gap_seconds > ttl_seconds:
            return Diagnosis("expired", f"idle {gap_seconds / 60:.1f} min > {ttl_seconds // 60} "
                             f"min TTL: only {usage.cache_read:,} of ~{expected:,} tokens read", lost)
        return Diagnosis(provider_reason or "partial",
                         f"read {usage.cache_read:,} of the ~{expected:,} tokens cached by the "
                         "previous request (evicted, or a breakpoint out of lookback range)", lost)
    if provider_reason:
        return Diagnosis(provider_reason, "reported by the provider", missed)
    fallback_missed = missed if missed is not None else usage.prompt_tokens
    if gap_seconds is not None and gap_seconds > ttl_seconds:
        return Diagnosis("expired", f"idle {gap_seconds / 60:.1f} min > {ttl_seconds // 60} min TTL",
                         fallback_missed)
    if prefix_tokens < min_tokens:
        return Diagnosis("too_small", f"prefix ~{prefix_tokens} tokens < {min_tokens} minimum",
                         fallback_missed)
    since = f"{gap_seconds:,.0f} s after the previous call, " if gap_seconds is not None else ""
    return Diagnosis("unknown", f"0 of ~{expected:,} tokens read {since}within the "
                     f"{ttl_seconds // 60}-min TTL", fallback_missed)


def _first_call(usage: Usage, provider_reason: str | None, provider_missed: int | None,
                facts: CacheFacts) -> Diagnosis:
    """A call with no earlier request of this process to compare (a new or resumed
    session)."""
    gap_seconds, ttl_seconds = facts.gap_seconds, facts.ttl_seconds
    prefix_tokens, min_tokens = facts.prefix_tokens, facts.min_tokens
    previous_prompt = facts.previous_prompt
    if usage.cache_read > 0:
        return Diagnosis(None)
    if provider_reason:  # e.g. a resumed session after a deliberate /model switch
        return Diagnosis(provider_reason, "reported by the provider", provider_missed)
    if gap_seconds is not None and gap_seconds > ttl_seconds and previous_prompt:
        # a resumed session: its last request is known by time and size, not parts
        return Diagnosis("expired", f"idle {gap_seconds / 60:.1f} min > "
                         f"{ttl_seconds // 60} min TTL since the session's last call "
                         "(resumed)", provider_missed or previous_prompt)
    if prefix_tokens < min_tokens:
        return Diagnosis("too_small", f"prefix ~{prefix_tokens} tokens < {min_tokens} minimum")
    return Diagnosis("cold", "first call of the session writes the cache", 0)
