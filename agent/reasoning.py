"""Reasoning settings (extended thinking, effort) and the opaque blocks they produce.

Provider facts (checked against the installed SDKs, anthropic 2.14 / openai; the modes
and effort levels each accepts are declared by its spec in agent/providers/):
- Anthropic `thinking`: `{"type": "enabled", "budget_tokens": N}` (N >= 1,024 and below
  `max_tokens`; thinking tokens count toward `max_tokens`), `{"type": "adaptive"}` (the
  model decides; newer models only), `{"type": "disabled"}`. Effort is
  `output_config.effort` in low|medium|high|xhigh|max. Replies carry
  `ThinkingBlock(thinking, signature)` / `RedactedThinkingBlock(data)`; both must come
  back verbatim in a tool-use continuation. Thinking refuses `temperature` and forced
  tool use; changing it invalidates the cached messages (tools and system stay cached).
- OpenAI Chat Completions: `reasoning_effort` in none|minimal|low|medium|high|xhigh|max.

A reasoning block is kept as the canonical JSON text of the block exactly as received
(ASCII-escaped, so the store never alters it) and re-sent from that text, so its bytes
never change between requests, within the tool loop or after a resume.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from agent.providers.registry import all_efforts, efforts, thinking_modes

EFFORTS = all_efforts()  # every provider's levels (each provider's own: its spec)
MIN_BUDGET = 1024
THINKING_MODES = ("off", "budget", "adaptive")
USAGE = ("off | adaptive | <budget tokens, >= 1024> | effort=<level> "
         "(e.g. `/reasoning 8000 effort=high`)")
BLOCK_TYPES = ("thinking", "redacted_thinking")


@dataclass(frozen=True)
class Reasoning:
    """How much the model thinks. `thinking`: "off", "budget" (`budget_tokens`) or
    "adaptive"; `effort`: a provider effort level or None (the provider's default)."""

    thinking: str = "off"
    budget_tokens: int = 0
    effort: str | None = None

    @property
    def thinks(self) -> bool:
        return self.thinking != "off"

    def key(self) -> str:
        """Canonical one-line form (diagnosis fingerprints, config round trips)."""
        mode = f"budget={self.budget_tokens}" if self.thinking == "budget" else self.thinking
        return f"thinking={mode};effort={self.effort or ''}"

    def describe(self) -> str:
        """What a person reads: "thinking 8,000 tokens, effort high"."""
        thinking = {"off": "thinking off", "adaptive": "adaptive thinking"}.get(
            self.thinking, f"thinking up to {self.budget_tokens:,} tokens")
        return thinking + (f", effort {self.effort}" if self.effort else "")

    def as_text(self) -> str:
        """The settings as `parse` reads them back ("8000 effort=high"), for storing."""
        mode = str(self.budget_tokens) if self.thinking == "budget" else self.thinking
        return f"{mode} effort={self.effort or 'default'}"

    def with_effort(self, effort: str | None) -> Reasoning:
        """These settings with a per-message effort (None keeps the session's)."""
        return self if effort is None else replace(self, effort=effort)


def parse(text: str, base: Reasoning | None = None) -> Reasoning:
    """`off`, `adaptive`, a budget (`8000`, `budget=8000`), `effort=high` or a bare effort
    level, space separated, applied over `base`. Raises ValueError with one clear line."""
    out = base or Reasoning()
    words = text.replace(",", " ").split()
    if not words:
        raise ValueError(f"say how to reason: {USAGE}")
    for word in words:
        name, _, value = word.lower().partition("=")
        if not value:
            name, value = ("effort", name) if name in EFFORTS else ("thinking", name)
        if name == "effort":
            if value not in EFFORTS and value != "default":
                raise ValueError(f"unknown effort {value!r}; use one of {', '.join(EFFORTS)}")
            out = replace(out, effort=None if value == "default" else value)
        elif name in ("thinking", "budget"):
            out = _thinking(out, value)
        else:
            raise ValueError(f"unknown reasoning setting {word!r}; use {USAGE}")
    return out


def _thinking(out: Reasoning, value: str) -> Reasoning:
    if value in ("off", "adaptive"):
        return replace(out, thinking=value, budget_tokens=0)
    try:
        budget = int(value.replace("_", ""))
    except ValueError:
        raise ValueError(f"{value!r} is not a thinking setting; use {USAGE}") from None
    if budget < MIN_BUDGET:
        raise ValueError(f"a thinking budget must be at least {MIN_BUDGET:,} tokens, not {budget:,}")
    return replace(out, thinking="budget", budget_tokens=budget)


def from_config(value: Any) -> Reasoning:
    """The `reasoning:` value of config.yaml: a string (`parse`) or a mapping with
    `thinking` (off|adaptive|<budget>) and `effort`. Raises ValueError."""
    if value is None or value == "":
        return Reasoning()
    if isinstance(value, int) and not isinstance(value, bool):
        return parse(str(value))
    if isinstance(value, str):
        return parse(value)
    if isinstance(value, dict):
        words = [f"{k}={v}" for k, v in value.items() if v is not None and k in ("thinking", "effort")]
        unknown = sorted(set(value) - {"thinking", "effort"})
        if unknown:
            raise ValueError(f"reasoning: unknown key {unknown[0]!r} (use thinking, effort)")
        return parse(" ".join(words)) if words else Reasoning()
    raise ValueError(f"reasoning: expected text or a mapping, not {type(value).__name__}")


def max_tokens_for(reasoning: Reasoning, max_tokens: int) -> int:
    """`max_tokens` for a request: thinking tokens count toward it and a budget must be
    below it, so a budget adds itself to the room left for the answer."""
    return max_tokens + reasoning.budget_tokens if reasoning.thinking == "budget" else max_tokens


def problem(reasoning: Reasoning, provider: str, model: str) -> str | None:
    """Why `model` served by `provider` cannot take these settings (one line), or None."""
    modes = thinking_modes(provider, model)
    if reasoning.thinking not in modes:
        if modes == ("off",):
            return (f"{provider} has no thinking setting; use an effort instead "
                    f"(/reasoning effort=high)")
        return f"{model} does not support {reasoning.thinking} thinking; use a token budget"
    allowed = efforts(provider)
    if reasoning.effort is not None and reasoning.effort not in allowed:
        return f"effort {reasoning.effort!r} is not one of {provider}'s: {', '.join(allowed)}"
    return None


def for_model(reasoning: Reasoning, provider: str, model: str) -> Reasoning:
    """The settings a request to `model` may carry: a thinking mode the model lacks (after
    /model or on the fallback model) is sent as "off", an effort it lacks as none, rather
    than a request the provider refuses. (Thinking off with thinking blocks in the
    history is accepted: they are ignored.)"""
    out = reasoning
    if out.thinking not in thinking_modes(provider, model):
        out = replace(out, thinking="off", budget_tokens=0)
    allowed = efforts(provider)
    if out.effort is not None and out.effort not in allowed:
        out = replace(out, effort=None)
    return out


# ---------------------------------------------------------------- opaque blocks

def block_json(block: dict[str, Any]) -> str:
    """Canonical JSON text of a reasoning block as received (ASCII: storable as is)."""
    return json.dumps(block, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def block_dict(text: str) -> dict[str, Any]:
    """The block to send back, from its stored text."""
    return json.loads(text)


def thinking_text(blocks: tuple[str, ...]) -> str:
    """The readable thinking of some blocks (redacted ones have none; an OpenAI reasoning
    item shows its summary)."""
    return "".join(_readable(block_dict(b)) for b in blocks)


def _readable(block: dict[str, Any]) -> str:
    if block.get("type") == "reasoning":
        return "".join(part.get("text") or "" for part in block.get("summary") or [])
    return block.get("thinking") or ""
