"""The providers the cache-efficiency bench runs its one script on, side by side.

A leg says how to reach the fake (Anthropic Messages, or OpenAI Responses with GPT-5.6's
explicit breakpoints), which two models the script switches between, the cache lifetime
the ideal model assumes, how the fake splits a wire body into blocks, and how its usage
splits writes by lifetime. `unread_writes` counts written tokens no later request read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent.providers.base import ProviderSettings
from tests.fakes import anthropic_api, responses_api
from tests.fakes.cache import FIVE_MINUTES, Prompt, anthropic_min_tokens


def _responses_blocks(body: dict[str, Any]) -> list:
    return responses_api.build_blocks(body, responses_api._items(body))


def _anthropic_split(usage: dict[str, Any]) -> tuple[int, int]:
    split = usage.get("cache_creation") or {}
    return split.get("ephemeral_5m_input_tokens", 0), split.get("ephemeral_1h_input_tokens", 0)


def _openai_split(usage: dict[str, Any]) -> tuple[int, int]:
    details = (usage.get("input_tokens_details") or {}).get("cache_write_tokens_details") or {}
    return details.get("ttl_30m_tokens", 0), details.get("ttl_12h_tokens", 0)


@dataclass(frozen=True)
class Leg:
    name: str
    model: str
    other: str  # the /model leg's model
    api: str  # the fake's record api: "anthropic" | "responses"
    ttl: float  # the lifetime the session's "5m" means on this provider
    min_tokens: Callable[[str], int]
    blocks: Callable[[dict[str, Any]], list]
    split: Callable[[dict[str, Any]], tuple[int, int]]  # (short-lived, long-lived) writes

    def settings(self, fake: Any) -> ProviderSettings:
        if self.api == "anthropic":
            return ProviderSettings("anthropic", self.model, "test-key", fake.anthropic_base_url)
        return ProviderSettings("openai", self.model, "test-key", fake.openai_base_url,
                                api="responses")

    def prompt(self, body: dict[str, Any]) -> Prompt:
        return Prompt(body["model"], self.blocks(body))


ANTHROPIC = Leg("anthropic", "claude-sonnet-5", "claude-opus-5", "anthropic", FIVE_MINUTES,
                anthropic_min_tokens, anthropic_api.build_blocks, _anthropic_split)
OPENAI = Leg("openai", "gpt-5.6-sol", "gpt-5.6-terra", "responses", 1800.0,
             lambda _model: 1024, _responses_blocks, _openai_split)
LEGS = {"anthropic": ANTHROPIC, "openai": OPENAI}


def _common(a: Prompt, b: Prompt) -> int:
    """Tokens of the longest common block prefix of two prompts (same model only)."""
    if a.model != b.model:
        return 0
    same = 0
    for x, y in zip(a.hashes, b.hashes, strict=False):
        if x != y:
            break
        same += 1
    return a.cum[same - 1] if same else 0


def unread_writes(leg: Leg, records: list[Any]) -> int:
    """Written tokens that no later request of the session read: request i wrote the span
    (read_i, read_i + write_i]; a later request j read min(read_j, common prefix) of it."""
    done = [r for r in records if r.status == 200]
    prompts = [leg.prompt(r.body) for r in done]
    unread = 0
    for i, rec in enumerate(done):
        if not rec.cache_write:
            continue
        later = max((min(done[j].cache_read, _common(prompts[i], prompts[j]))
                     for j in range(i + 1, len(done))), default=0)
        top = rec.cache_read + rec.cache_write
        unread += max(0, top - max(rec.cache_read, min(later, top)))
    return unread


def new_session(fake: Any, config: Any, store: Any) -> Any:
    """One turn of a new session on the same installation and project (what a second
    terminal, a sub-agent or a gateway chat does): its first request's record."""
    from agent.agent import AIAgent
    from tests.fakes import Reply

    fake.script(Reply(text="Hello again."))
    agent = AIAgent(config, store, approve=lambda *_: True, clock=fake.clock.now)
    try:
        for _ in agent.run_turn("A new session: hello."):
            pass
    finally:
        agent.close()
    return fake.last


DIAGNOSED = ("cache_hit",)  # plus every cache_miss reason; not_found/unavailable are not


def leg_figures(leg: Leg, records: list[Any], first: Any) -> dict[str, Any]:
    """The figures besides efficiency: written tokens never read, a new session's first
    read share, and (OpenAI) the share of follow-ups the provider diagnosed."""
    follow = [r for r in records[1:] if r.status == 200]
    diagnosed = None
    if leg.api == "responses" and follow:
        named = [r for r in follow if r.miss_reason and r.miss_reason not in (
            "comparison_response_not_found", "unavailable")]
        diagnosed = len(named) / len(follow)
    return {"unread_writes": unread_writes(leg, records),
            "new_session_read_share": first.cache_read / first.prompt_tokens
            if first.prompt_tokens else None,
            "diagnosed_share": diagnosed}
