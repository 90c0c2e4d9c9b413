"""Context compression: the one sanctioned rewrite of a session's history.

`Compactor.compress(session)` summarises the middle of the session's history with an
auxiliary model and returns a NEW Session (parent_id -> the old one, which stays
untouched) whose history is head + summary + tail and whose stable layer is rebuilt
re-reading memory from disk (SessionFactory.child decides what carries over). Until
the summary is in hand nothing changes; if the summary call fails (twice, when it
answered with a tool call), the session, its history and the store are left exactly as
they were. The summary call reuses the session's own request while its cache is hot
(agent.compression.request). Every compaction, and every preview, is announced with a
Notice saying what the summary call reads and costs and what the next call's cache
rewrite costs. `Compactor.check` is the automatic trigger's test (agent.compression.trigger):
it never compacts when that would save little or leave the prompt over the trigger.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field

from agent.cancel import CancelToken
from agent.compression.plan import TAIL_SHARE, Plan, history_tokens, plan
from agent.compression.prompt import summary_message, summary_prompt
from agent.compression.request import Forecast, summary_call, summary_estimate, summary_model
from agent.config import AgentConfig
from agent.cost import pricing
from agent.cost.budget import Budget
from agent.errors import HermesError
from agent.events import ErrorEvent, Event, Notice, UsageEvent
from agent.loop import CallItem
from agent.messages import Message, ProviderReply, Request
from agent.modelcall.calls import stream_with_retries
from agent.modelcall.ledger import Billed, Ledger
from agent.providers import models, registry
from agent.providers.base import Provider
from agent.sessions.session import Session, SessionFactory
from agent.tokens import estimate_tokens
from agent.usage import Usage, usd
from memory.store import SessionStore

SUMMARY_CALL = "context compression: summary call"
MIN_MIDDLE_MESSAGES = 2
MIN_MIDDLE_TOKENS = 200
MIN_SAVING_SHARE = 0.25  # automatic compaction must cut at least this share of the prompt


class CompressionFailed(HermesError):
    """The summary call answered, but with nothing usable (empty, refused)."""


@dataclass
class Compactor:
    """What compression needs besides the session: settings, the provider (looked up
    lazily), the store and the session factory (the tool schemas are the session's)."""

    config: AgentConfig
    provider: Callable[[], Provider]
    store: SessionStore | None
    sessions: SessionFactory
    budget: Budget | None = None  # summary calls are spend too
    # the session's own request (ModelCaller.build_request): the summary call reuses it
    shape: Callable[[], Request] | None = None
    declined: set[str] = field(default_factory=set)  # sessions told why auto compaction waits
    # PreCompact hooks: `pre_compact(session, reason, focus)` yields their warnings
    pre_compact: Callable[[Session, str, str | None], Generator[Event]] | None = None

    @property
    def ledger(self) -> Ledger:
        """Where the summary call is recorded (its spend counts like a turn's)."""
        return Ledger(self.store, self.budget, self.config.prices)

    def should_compress(self, session: Session) -> bool:
        return should_compress(session, self)

    def check(self, session: Session) -> tuple[bool, Notice | None]:
        """The automatic trigger's decision and, once per session, why it waits."""
        return check(session, self)

    def compress(self, session: Session, focus: str | None = None, preview: bool = False,
                 cancel: CancelToken | None = None, *, reason: str = "manual",
                 upto: int | None = None) -> Generator[Event, None, Session | None]:
        """Events of the compression; returns the new Session (None: nothing changed)."""
        if self.pre_compact is not None and not preview:
            yield from self.pre_compact(session, reason, focus)
        return (yield from compress_session(session, self, focus, preview, cancel,
                                            reason=reason, upto=upto))


def context_window(session: Session, env: Compactor) -> int:
    """The main model's context window (config override first)."""
    return models.context_window(session.model, env.config.context_windows.get(session.model))


def plan_for(session: Session, env: Compactor, upto: int | None = None,
             manual: bool = False) -> Plan | None:
    """The compaction plan for the agent's history (its first `upto` messages).

    Automatic compaction keeps a tail of ~20% of the window. A manual /compress on a big
    window would then never find anything to do, so it keeps at most a quarter of the
    history (still at least the last few exchanges when they fit)."""
    messages = session.conversation.messages[:upto]
    budget = int(context_window(session, env) * TAIL_SHARE)
    if manual:
        budget = min(budget, history_tokens(messages) // 4)
    work = plan(messages, budget)
    if work is None or len(work.middle) < MIN_MIDDLE_MESSAGES:
        return None  # replacing one message by a summary saves nothing and breaks the cache
    if history_tokens(work.middle) < MIN_MIDDLE_TOKENS:
        return None
    return work


def should_compress(session: Session, env: Compactor) -> bool:
    """True when the last call's prompt reached `compression_threshold` x the window and
    a compaction would bring it well below that (see `auto_check`)."""
    return auto_check(session, env) == (True, "")


def auto_check(session: Session, env: Compactor) -> tuple[bool, str]:
    """(compress now?, why not although the trigger is reached - "" when it is not).

    A compaction that leaves the prompt over the trigger, or saves less than
    MIN_SAVING_SHARE of it, is not made: it would cost a summary call and a cache
    rewrite and run again on the next turn."""
    used = session.calls.last_prompt_tokens
    window = context_window(session, env)
    trigger = int(env.config.compression_threshold * window)
    if used <= 0 or used < trigger:
        return False, ""
    where = (f"the prompt (~{used:,} tokens) reached the compression trigger "
             f"({env.config.compression_threshold:g} x {session.model}'s {window:,}-token "
             f"window = {trigger:,})")
    work = plan_for(session, env)
    if work is None:
        return False, (f"{where}, but there is too little history before the last exchanges "
                       "(which are kept verbatim) to summarise")
    after = _tokens_after(session, env, list(work.kept), summary_estimate(work))
    if after < trigger and used - after >= MIN_SAVING_SHARE * used:
        return True, ""
    return False, (f"{where}, but what compression keeps (system prompt, tools, the first "
                   f"request, the last {len(work.tail)} messages and the summary) is "
                   f"~{after:,} tokens: it would save ~{max(0, used - after):,} and run "
                   "again on the next turn")


def check(session: Session, env: Compactor) -> tuple[bool, Notice | None]:
    """(compress now?, the one notice per session that automatic compression is reached
    but would not help, with what the user can do instead)."""
    go, why = auto_check(session, env)
    if go or not why or session.id in env.declined:
        return go, None
    env.declined.add(session.id)
    return False, Notice(f"Automatic compression skipped: {why}. Instead: /new starts a fresh "
                  "session (memory carries over); or raise `compression: {threshold: ...}` "
                  "or the model's `context_windows` entry in config.yaml, or switch to a "
                  "model with a larger context window.", "warning")


def _prefix_tokens(session: Session, env: Compactor) -> int:
    text = "".join(t.canonical() for t in session.choices.tools) + session.stable + session.ephemeral
    return estimate_tokens(text)


def _rewrite_cost(session: Session, env: Compactor, tokens: int, read: int = 0) -> float | None:
    usage = (Usage(cache_read=read, write_1h=tokens - read) if env.config.cache_ttl == "1h"
             else Usage(cache_read=read, write_5m=tokens - read))
    return pricing.cost(usage, session.model, env.config.prices)


def _shared_tokens(session: Session, env: Compactor) -> int:
    """Tools + the shared stable blocks (installation, project): what the child's first
    request reads while they are warm (0 when below the model's cache minimum)."""
    text = ("".join(t.canonical() for t in session.choices.tools)
            + "".join(b for _, b in session.blocks[:-1]))
    tokens = estimate_tokens(text) if len(session.blocks) > 1 else 0
    return tokens if tokens >= models.min_cache_tokens(session.model) else 0


def _tokens_before(session: Session, env: Compactor, before: list[Message]) -> int:
    """The last call's measured prompt tokens, else an estimate of the current prompt."""
    return session.calls.last_prompt_tokens or (_prefix_tokens(session, env)
                                                + history_tokens(before))


def _tokens_after(session: Session, env: Compactor, after: list[Message], extra: int = 0) -> int:
    """Estimated prompt of the next call over `after` (with the session's current prefix)."""
    return _prefix_tokens(session, env) + history_tokens(after) + extra


def _next_call(session: Session, env: Compactor, tokens: int, warm: bool = False) -> str:
    """What the next call does with the cache: a rewrite of ~`tokens` (and its cost) -
    less the shared prefix it reads while `warm` - or nothing cached when the new
    prompt is below the model's cache minimum."""
    minimum = models.min_cache_tokens(session.model)
    if tokens < minimum:
        return (f"the next call will not be cached: its prompt (~{tokens:,} tokens) is below "
                f"{session.model}'s minimum cacheable size ({minimum:,})")
    read = min(_shared_tokens(session, env), tokens) if warm else 0
    cost = _dollars(_rewrite_cost(session, env, tokens, read))
    if read:
        return (f"the next call reads the tools and shared system blocks (~{read:,} tokens) "
                f"and rewrites the rest (~{tokens - read:,} tokens; {cost})")
    return f"the next call rewrites the cache (~{tokens:,} tokens, {cost})"


def _dollars(cost: float | None) -> str:
    return "cost unknown" if cost is None else f"est. {usd(cost)}"


def _call_cost(session: Session, env: Compactor, forecast: Forecast, output: int) -> str:
    """The summary call's estimated cost ("cost unknown" when reads are unknown)."""
    if forecast.read is None:
        return "cost unknown (the provider reports no cache data)"
    usage = Usage(cache_read=forecast.read, uncached=forecast.prompt - forecast.read,
                  output=output)
    return _dollars(pricing.cost(usage, summary_model(env.config, session), env.config.prices))


def _call_figures(session: Session, env: Compactor, forecast: Forecast, output: int) -> str:
    """One phrase: what the summary call sends, reads and costs (and, on a cold cache,
    the rewrite a cache-reading call would have paid instead)."""
    prompt = f"~{forecast.prompt:,} tokens in"
    if forecast.form == "cached":
        if forecast.read is None:
            read = "cache reads unknown"
        else:
            share = forecast.read / forecast.prompt if forecast.prompt else 0.0
            read = f"~{forecast.read:,} ({share:.0%}) read from the session's cache"
        text = f"{prompt} ({read})"
    else:
        text = f"{prompt} (the pruned transcript, uncached: {forecast.why})"
    text += f", ~{output:,} out, {_call_cost(session, env, forecast, output)}"
    if forecast.rewrite:
        cost = _rewrite_cost(session, env, forecast.rewrite)
        text += (f"; a call reusing the session's prompt would rewrite ~{forecast.rewrite:,} "
                 f"tokens ({_dollars(cost)})")
    return text


def _preview_notice(session: Session, env: Compactor, work: Plan, request: Request,
                    forecast: Forecast, before: list[Message]) -> Notice:
    _, digests = summary_prompt(work, None)
    call_out = summary_estimate(work)
    tokens_before = _tokens_before(session, env, before)
    tokens_after = _tokens_after(session, env, list(work.kept), call_out)
    update = " (updating the previous summary)" if work.previous is not None else ""
    pruned = (f" ({digests} tool outputs pruned to one-line digests)"
              if forecast.form == "transcript" else "")
    asks = [" ".join(m.content.split()) for m in work.middle if m.role == "user" and not m.kind]
    shown = "; ".join(f"'{a[:50]}{'...' if len(a) > 50 else ''}'" for a in asks[:5])
    more = f" and {len(asks) - 5} more" if len(asks) > 5 else ""
    which = f" The summarised part starts with the requests: {shown}{more}." if asks else ""
    return Notice(
        f"Compression preview: would summarise {len(work.middle)} messages{update}"
        f"{pruned}, keeping the first request "
        f"and the last {len(work.tail)} messages verbatim. Messages {len(before)} -> "
        f"{len(work.kept) + 1}, prompt ~{tokens_before:,} -> ~{tokens_after:,} tokens. "
        f"Summary call with {request.model}: {_call_figures(session, env, forecast, call_out)}"
        f"; then {_next_call(session, env, tokens_after, forecast.form == 'cached')}.{which} "
        "Nothing was changed."
    )


def _summary_text(reply: ProviderReply) -> str:
    if reply.stop_reason == "refusal":
        raise CompressionFailed("the summary model refused to summarise")
    if reply.message.tool_calls:
        raise CompressionFailed("the summary model called a tool instead of writing the summary")
    text = reply.message.content.strip()
    if not text:
        raise CompressionFailed("the summary model returned an empty summary")
    return text


def _record(session: Session, env: Compactor, request: Request, reply: ProviderReply) -> UsageEvent:
    """Record the summary call's usage on `session`; the cache chain (the previous
    request's fingerprint and breakpoint) is not advanced by this side call."""
    billed = Billed(reply.usage, reply.model or request.model, reply.response_id,
                    detail=SUMMARY_CALL)
    return env.ledger.record(session.id, session.provider, session.calls, billed)


def _commit(session: Session, env: Compactor, work: Plan, summary: str,
            record: Callable[[Session], list[UsageEvent]]) -> tuple[Session, list[UsageEvent]]:
    """A new child session holding head + summary + tail, with the summary call recorded
    there. On any error the half-made child row is deleted and the old session goes on
    as if nothing happened (it was never changed)."""
    child = env.sessions.child(session)
    try:
        for message in [*work.head, summary_message(summary, session.id, len(work.middle)),
                        *work.tail]:
            child.conversation.append(message)
        return child, record(child)
    except BaseException:
        env.sessions.discard(child)
        raise


def _failed(why: str) -> ErrorEvent:
    return ErrorEvent(f"Compression failed: {why}",
                      "Nothing was changed: same session, same history.")


def compress_session(session: Session, env: Compactor, focus: str | None = None,  # noqa: PLR0913
                     preview: bool = False, cancel: CancelToken | None = None, *,
                     reason: str = "manual", upto: int | None = None
                     ) -> Generator[Event, None, Session | None]:
    """Compress the session's history (see module docstring), yielding Notice/UsageEvent,
    or ErrorEvent when nothing could be changed; returns the new Session or None. `upto`
    limits the history considered (the overflow retry leaves out the turn that failed);
    `reason` labels the notices."""
    cancel = cancel or CancelToken()
    before = session.conversation.messages[:upto]
    work = plan_for(session, env, upto, manual=reason == "manual")
    if work is None:
        if reason == "manual":
            yield Notice(f"Nothing worth compressing yet: {len(before)} messages "
                         f"(~{history_tokens(before):,} tokens); a summary would not make the "
                         "prompt smaller, and it would cost a cache rewrite.")
        return None
    forecast, make = summary_call(session, env.config, env.shape, env.sessions.clock(),
                                  work, focus, upto)
    request = make(False)
    if preview:
        yield _preview_notice(session, env, work, request, forecast, before)
        return None
    yield Notice(f"Compressing the conversation ({reason}): summarising {len(work.middle)} "
                 f"messages with {request.model}: "
                 f"{_call_figures(session, env, forecast, summary_estimate(work))}...")
    notices = len(env.sessions.notices)
    tokens_before = _tokens_before(session, env, before)
    calls: list[tuple[Request, ProviderReply]] = []  # recorded on the child when it is made
    try:
        for strict in (False, True):  # a tool call instead of the notes: ask once more
            request = make(strict)
            reply = yield from _notices(stream_with_retries(
                env.provider(), request, env.config.retry, cancel, label="Summary call: ",
                text=False))
            calls.append((request, reply))
            if not reply.message.tool_calls or strict:
                break
            yield Notice("The summary model answered with a tool call; asking once more for "
                         "the notes as text.", "warning")
        summary = _summary_text(reply)
    except HermesError as exc:
        yield _failed(exc.message)
        return None
    try:
        child, usage_events = _commit(session, env, work, summary, lambda new: [
            _record(new, env, sent, got) for sent, got in calls])
    except Exception as exc:  # noqa: BLE001 - rolled back in _commit; the user must know
        yield _failed(f"could not start the new session ({exc})")
        return None
    yield from usage_events
    yield from env.sessions.notices[notices:]
    new = child.conversation.messages
    tokens_after = _tokens_after(child, env, new)
    child.calls.context_estimate = tokens_after  # the toolbar's figure until the next call
    yield Notice(
        f"Compressed the conversation ({reason}): messages {len(before)} -> {len(new)}, "
        f"prompt ~{tokens_before:,} -> ~{tokens_after:,} tokens. Continuing in session "
        f"{child.id} (previous: {session.id}, kept intact). The system prompt was "
        f"rebuilt with memory re-read from disk, so "
        f"{_next_call(child, env, tokens_after, forecast.form == 'cached')}.{_storage(session)}",
        "warning",
    )
    return child


def _storage(session: Session) -> str:
    """What the new session does to a cache billed by the hour (a "resource" cache:
    Gemini's cachedContents); "" for the other cache models."""
    if registry.cache_model(session.provider, session.model).style != "resource":
        return ""
    return (" The explicit cache of the tools and shared system blocks goes on serving the "
            "new session while they are unchanged; if they changed it is deleted at the next "
            "call (its storage stops) and a new one is made only where it is expected to pay "
            "(written at the input price, then stored by the hour).")


def _notices(call: Generator[CallItem, None, ProviderReply]) -> Generator[Event, None, ProviderReply]:
    """A call's retry notices (it streams no text: `text=False`), and its reply."""
    while True:
        try:
            item = next(call)
        except StopIteration as stop:
            return stop.value
        if isinstance(item, Notice | UsageEvent):
            yield item
