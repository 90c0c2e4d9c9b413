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

The settings themselves (`Reasoning`) and the opaque blocks they produce are part of the
neutral request and message types (agent/messages.py); this module holds what depends
on the providers: which modes and efforts each accepts, and parsing a setting.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent.messages import Reasoning
from agent.providers.registry import all_efforts, efforts, thinking_modes

EFFORTS = all_efforts()  # every provider's levels (each provider's own: its spec)
MIN_BUDGET = 1024
THINKING_MODES = ("off", "budget", "adaptive")
USAGE = ("off | adaptive | <budget tokens, >= 1024> | effort=<level> "
         "(e.g. `/reasoning 8000 effort=high`)")


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
