"""What a deliberate cache break costs (/model, /personality, /undo, /mcp reload): the
tokens the next call re-sends, what it still reads, and the price, for the notice that
explains the miss (agent/session_edits.py)."""

from __future__ import annotations

from collections.abc import Sequence

from agent.cost import pricing
from agent.messages import ToolSchema
from agent.modelcall.calls import ModelCaller
from agent.tokens import estimate_tokens
from agent.usage import Usage, usd


def prompt_tokens(caller: ModelCaller, tools: Sequence[ToolSchema]) -> int:
    """Estimated tokens of the whole next prompt: tools, system layers, and the history
    as the caller estimates it (its images and thinking blocks included)."""
    session = caller.session
    prefix = "".join(t.canonical() for t in tools) + session.stable + session.ephemeral
    return estimate_tokens(prefix) + caller.history_tokens()


def rebuild_estimate(caller: ModelCaller, tools: Sequence[ToolSchema],
                     model: str | None = None) -> tuple[int, float | None]:
    """Tokens the next call would re-send uncached after a rebuild, and their cost as a
    cache write (None when the model's price is unknown)."""
    tokens = prompt_tokens(caller, tools)
    cost = pricing.cost(Usage(write_5m=tokens, calls=1), model or caller.model,
                        caller.config.prices)
    return tokens, cost


def warm_tokens(caller: ModelCaller, model: str, now: float) -> int:
    """Prompt tokens of `model`'s last call in this session while that cache entry still
    lives (its lifetime on the session's cache model), else 0: what a switch back reads."""
    entry = caller.state.last_by_model.get(model)
    if entry is None:
        return 0
    _fingerprint, when, prompt = entry
    alive = now - when < caller.cache_model(model).lifetime(caller.config.cache_ttl)
    return prompt if alive else 0


def break_cost(caller: ModelCaller, tools: Sequence[ToolSchema], model: str,
               read: int, written: int | None = None) -> tuple[int, int, str]:
    """After a deliberate break: (tokens still cached that the next call reads, tokens it
    writes anew, its cost as text). `written`: what the next call writes when it is
    known apart from the prompt (a model whose entry is warm writes the messages after
    its last request's, `caller.unwritten_tokens`) - never the estimated prompt less the
    provider's count of the read, which mixes two counts and comes out ~0."""
    if written is None:
        total = prompt_tokens(caller, tools)
        read = min(read, total)
        written = total - read
    cost = pricing.cost(Usage(write_5m=written, cache_read=read, calls=1), model,
                        caller.config.prices)
    return read, written, dollars(cost)


def dollars(cost: float | None) -> str:
    return ", cost unknown (not in the price table)" if cost is None else f", est. {usd(cost)}"
