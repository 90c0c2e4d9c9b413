"""Context compression: the one sanctioned rewrite of a session's history.

`compress_session` summarises the middle of the history with an auxiliary model and
continues in a NEW session (parent_id -> the old one, which stays untouched) whose
history is head + summary + tail and whose stable layer is rebuilt re-reading memory
from disk. Until the summary is in hand nothing changes; if the summary call fails, the
session, its history and the store are left exactly as they were. Every compaction,
and every preview, is announced with a Notice saying what the next call's cache rewrite
costs. `should_compress` is the automatic trigger's test (see compression_trigger).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from agent import models, pricing
from agent.calls import stream_with_retries
from agent.cancel import CancelToken
from agent.compression_plan import TAIL_SHARE, Plan, history_tokens, plan
from agent.compression_prompt import summary_message, summary_prompt, summary_request
from agent.errors import HermesError
from agent.events import ErrorEvent, Event, Notice, UsageEvent
from agent.messages import Message, ProviderReply, Request
from agent.prompt import estimate_tokens
from agent.usage import Usage

if TYPE_CHECKING:
    from agent.agent import AIAgent

ESTIMATED_SUMMARY_TOKENS = 1200  # upper bound of the summary size a preview assumes
SUMMARY_CALL = "context compression: summary call"
MIN_MIDDLE_MESSAGES = 2
MIN_MIDDLE_TOKENS = 200
_SWAPPED = ("session_id", "stable", "state", "conversation", "tool_ctx", "_inputs")
_CARRIED = ("turn", "call_index", "previous_fingerprint", "last_call_time", "warned_small",
            "used_fallback")


class CompressionFailed(HermesError):
    """The summary call answered, but with nothing usable (empty, refused)."""


def context_window(agent: AIAgent) -> int:
    """The main model's context window (config override first)."""
    return models.context_window(agent.model, agent.config.context_windows.get(agent.model))


def summary_model(agent: AIAgent) -> str:
    """The auxiliary model for summaries: `compression_model`, else the main model."""
    return agent.config.compression_model or agent.model


def plan_for(agent: AIAgent, upto: int | None = None, manual: bool = False) -> Plan | None:
    """The compaction plan for the agent's history (its first `upto` messages).

    Automatic compaction keeps a tail of ~20% of the window. A manual /compress on a big
    window would then never find anything to do, so it keeps at most a quarter of the
    history (still at least the last few exchanges when they fit)."""
    messages = agent.conversation.messages[:upto]
    budget = int(context_window(agent) * TAIL_SHARE)
    if manual:
        budget = min(budget, history_tokens(messages) // 4)
    work = plan(messages, budget)
    if work is None or len(work.middle) < MIN_MIDDLE_MESSAGES:
        return None  # replacing one message by a summary saves nothing and breaks the cache
    if history_tokens(work.middle) < MIN_MIDDLE_TOKENS:
        return None
    return work


def should_compress(agent: AIAgent) -> bool:
    """True when the last call's prompt reached `compression_threshold` x the window and
    there is something to summarise."""
    used = agent.state.last_prompt_tokens
    if used <= 0 or used < agent.config.compression_threshold * context_window(agent):
        return False
    return plan_for(agent) is not None


def _prefix_tokens(agent: AIAgent) -> int:
    text = "".join(t.canonical() for t in agent.registry.schemas()) + agent.stable + agent.ephemeral
    return estimate_tokens(text)


def _rewrite_cost(agent: AIAgent, tokens: int) -> float | None:
    bucket = "write_1h" if agent.config.cache_ttl == "1h" else "write_5m"
    return pricing.cost(Usage(**{bucket: tokens}), agent.model, agent.config.prices)


def _tokens_before(agent: AIAgent, before: list[Message]) -> int:
    """The last call's measured prompt tokens, else an estimate of the current prompt."""
    return agent.state.last_prompt_tokens or _prefix_tokens(agent) + history_tokens(before)


def _tokens_after(agent: AIAgent, after: list[Message], extra: int = 0) -> int:
    """Estimated prompt of the next call over `after` (with the agent's current prefix)."""
    return _prefix_tokens(agent) + history_tokens(after) + extra


def _dollars(cost: float | None) -> str:
    return "cost unknown" if cost is None else f"est. ${cost:.4f}"


def _preview_notice(agent: AIAgent, work: Plan, request: Request, before: list[Message]) -> Notice:
    _, digests = summary_prompt(work, None)
    call_in = estimate_tokens(request.system[0].text + request.messages[0].content)
    call_out = min(ESTIMATED_SUMMARY_TOKENS, max(200, call_in // 3))
    tokens_before = _tokens_before(agent, before)
    tokens_after = _tokens_after(agent, list(work.kept), call_out)
    call_cost = pricing.cost(Usage(uncached=call_in, output=call_out), request.model,
                             agent.config.prices)
    update = " (updating the previous summary)" if work.previous is not None else ""
    asks = [" ".join(m.content.split()) for m in work.middle if m.role == "user" and not m.kind]
    shown = "; ".join(f"'{a[:50]}{'...' if len(a) > 50 else ''}'" for a in asks[:5])
    more = f" and {len(asks) - 5} more" if len(asks) > 5 else ""
    which = f" The summarised part starts with the requests: {shown}{more}." if asks else ""
    return Notice(
        f"Compression preview: would summarise {len(work.middle)} messages{update} "
        f"({digests} tool outputs pruned to one-line digests), keeping the first request "
        f"and the last {len(work.tail)} messages verbatim. Messages {len(before)} -> "
        f"{len(work.kept) + 1}, prompt ~{tokens_before:,} -> ~{tokens_after:,} tokens. "
        f"Summary call with {request.model}: ~{call_in:,} tokens in, "
        f"~{call_out:,} out, {_dollars(call_cost)}; then the next call "
        f"rewrites the cache (~{tokens_after:,} tokens, "
        f"{_dollars(_rewrite_cost(agent, tokens_after))}).{which} Nothing was changed."
    )


def _summarise(agent: AIAgent, request: Request, cancel: CancelToken) -> Iterator[Event]:
    """Make the summary call with the session's retry policy; returns the reply."""
    return (yield from stream_with_retries(agent.provider, request, agent.config.retry, cancel,
                                           label="Summary call: ", text=False))


def _summary_text(reply: ProviderReply) -> str:
    if reply.stop_reason == "refusal":
        raise CompressionFailed("the summary model refused to summarise")
    text = reply.message.content.strip()
    if not text:
        raise CompressionFailed("the summary model returned an empty summary")
    return text


def _record(agent: AIAgent, request: Request, reply: ProviderReply) -> UsageEvent:
    """Record the summary call's usage on the current session; the cache chain (the
    previous request's fingerprint and breakpoint) is not advanced by this side call."""
    model = reply.model or request.model
    cost = pricing.cost(reply.usage, model, agent.config.prices)
    usage = reply.usage
    agent.state.call_index += 1
    if agent.store is not None:
        agent.store.add_usage(
            agent.session_id, turn=agent.state.turn, call_index=agent.state.call_index,
            model=model, provider=agent.provider_name, uncached=usage.uncached,
            write_5m=usage.write_5m, write_1h=usage.write_1h,
            cache_read=usage.cache_read if usage.cache_known else None, output=usage.output,
            cost_usd=cost, cache_known=usage.cache_known, miss_detail=SUMMARY_CALL,
            response_id=reply.response_id,
        )
    return UsageEvent(usage, model, cost, None, SUMMARY_CALL)


def _commit(agent: AIAgent, work: Plan, summary: str, record: Callable[[], UsageEvent]
            ) -> tuple[list[Message], UsageEvent]:
    """Switch the agent to a new child session holding head + summary + tail, and record
    the summary call there. On any error the agent is restored and the half-made child
    row is deleted, so the old session goes on as if nothing happened."""
    saved = {name: getattr(agent, name) for name in _SWAPPED}
    old_id, old_state = agent.session_id, agent.state
    old_row = (agent.store.get_session(old_id) or {}) if agent.store is not None else {}
    try:
        agent._start_new(parent_id=old_id)
        for name in _CARRIED:
            setattr(agent.state, name, getattr(old_state, name))
        # the tools' per-session state (terminal cwd, todo list) survives the seam
        agent.tool_ctx.state = saved["tool_ctx"].state
        new = [*work.head, summary_message(summary, old_id, len(work.middle)), *work.tail]
        for message in new:
            agent.conversation.append(message)
        if agent.store is not None and old_row.get("title"):
            agent.store.update_session(agent.session_id, title=old_row["title"])
        return new, record()
    except BaseException:
        new_id = agent.session_id
        for name, value in saved.items():
            setattr(agent, name, value)
        if agent.store is not None and new_id != old_id:
            agent.store.delete_session(new_id)
        raise


def _failed(why: str) -> ErrorEvent:
    return ErrorEvent(f"Compression failed: {why}",
                      "Nothing was changed: same session, same history.")


def compress_session(agent: AIAgent, focus: str | None = None, preview: bool = False,
                     cancel: CancelToken | None = None, *, reason: str = "manual",
                     upto: int | None = None) -> Iterator[Event]:
    """Compress the agent's history (see module docstring), yielding Notice/UsageEvent,
    or ErrorEvent when nothing could be changed. `upto` limits the history considered
    (the overflow retry leaves out the turn that failed); `reason` labels the notices.
    """
    cancel = cancel or CancelToken()
    before = agent.conversation.messages[:upto]
    work = plan_for(agent, upto, manual=reason == "manual")
    if work is None:
        if reason == "manual":
            yield Notice(f"Nothing worth compressing yet: {len(before)} messages "
                         f"(~{history_tokens(before):,} tokens); a summary would not make the "
                         "prompt smaller, and it would cost a cache rewrite.")
        return
    request = summary_request(work, summary_model(agent), focus, agent.config.max_tokens)
    if preview:
        yield _preview_notice(agent, work, request, before)
        return
    yield Notice(f"Compressing the conversation ({reason}): summarising {len(work.middle)} "
                 f"messages with {request.model}...")
    old_id, notices = agent.session_id, len(agent.startup_notices)
    tokens_before = _tokens_before(agent, before)
    try:
        reply = yield from _summarise(agent, request, cancel)
        summary = _summary_text(reply)
    except HermesError as exc:
        yield _failed(exc.message)
        return
    try:
        new, usage_event = _commit(agent, work, summary, lambda: _record(agent, request, reply))
    except Exception as exc:  # noqa: BLE001 - rolled back in _commit; the user must know
        yield _failed(f"could not start the new session ({exc})")
        return
    yield usage_event
    yield from agent.startup_notices[notices:]
    tokens_after = _tokens_after(agent, new)
    yield Notice(
        f"Compressed the conversation ({reason}): messages {len(before)} -> {len(new)}, "
        f"prompt ~{tokens_before:,} -> ~{tokens_after:,} tokens. Continuing in session "
        f"{agent.session_id} (previous: {old_id}, kept intact). The system prompt was "
        "rebuilt with memory re-read from disk, so the next call rewrites the cache "
        f"(~{tokens_after:,} tokens, {_dollars(_rewrite_cost(agent, tokens_after))}).",
        "warning",
    )
