"""Changing a live agent's reasoning settings in place, and what the change costs.

Thinking settings are request parameters, not prompt text: a change never rebuilds the
agent or its system prompt. On Anthropic it invalidates the cached messages (tools and
system stay cached, docs/CACHING.md), so the notice names that cost before the next call
pays it; the call that pays it is diagnosed `thinking_changed`.
"""

from __future__ import annotations

from agent.cost import pricing
from agent.events import Notice
from agent.messages import Reasoning
from agent.modelcall.calls import ModelCaller
from agent.providers.reasoning import problem
from agent.sessions.session import SessionFactory
from agent.usage import Usage, usd


def change_cost(caller: ModelCaller) -> tuple[int, float | None]:
    """(estimated message tokens the next call re-sends, their write cost in USD)."""
    tokens = caller.history_tokens()
    marks = caller.cache_model().style == "markers"
    usage = Usage(write_5m=tokens) if marks else Usage(uncached=tokens)
    return tokens, pricing.cost(usage, caller.model, caller.config.prices)


def set_reasoning(caller: ModelCaller, sessions: SessionFactory, new: Reasoning) -> Notice:
    """Make `new` the session's choice from the next turn on (raises ValueError when the
    model refuses it); stored with the session, inherited by sub-agents and /new."""
    why = problem(new, caller.session.provider, caller.model)
    if why is not None:
        raise ValueError(why)
    old = caller.reasoning
    sessions.set_reasoning(caller.session, new)  # the next begin_turn picks it up
    tokens, cost = change_cost(caller)
    dollars = "" if cost is None else f" (~{usd(cost)})"
    if tokens == 0:
        cost_text = "nothing is cached yet, so it costs nothing extra"
    else:
        cost_text = (f"the next call re-sends the conversation's ~{tokens:,} message tokens "
                     f"uncached{dollars}; tools and system stay cached")
    return Notice(f"Reasoning: {old.describe()} -> {new.describe()}. Changing reasoning "
                  f"settings invalidates the cached messages: {cost_text}.", "warning")
