"""One keep-warm read: the session's previous request sent again, generating nothing.

It reads the prefix the previous request wrote and so refreshes that cache entry's TTL
(docs/CACHING.md section 1). It is a real call: one usage row of kind "keep_warm", priced like
any other. It never changes the session: the stable prompt, the history, the breakpoint
positions and the diagnostics chain stay as they were; only the time of the model's last
request moves (the entry was refreshed, so the next call is not diagnosed "expired").

The replayed request keeps the session's settings (tools, tool_choice, reasoning effort,
breakpoints and their TTLs): it is byte-identical up to the last breakpoint, with
max_tokens 0 on Anthropic (a 1-token answer where a wire takes no 0) - what the session's
cache model makes of it (`CacheModel.refresh`: a GPT-5.6 `prewarm`). Only a cache model
whose `keep_warm` is "replay" is kept warm so; a provider that keeps its own resource
warm (Gemini) is never replayed. No retries: a failed keep-warm ends keeping warm for
this pause.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.cancel import CancelToken
from agent.errors import TransientProviderError
from agent.messages import Request
from agent.modelcall.calls import ModelCaller, stream_with_retries
from agent.modelcall.ledger import Billed
from agent.providers._errors import CancelledMidStream
from agent.providers.cache_model import CacheModel
from agent.retry import RetryPolicy

KIND = "keep_warm"
ONE_TRY = RetryPolicy(attempts=1)


@dataclass(frozen=True)
class KeepWarmResult:
    """What one keep-warm read did: tokens read and written, cost (None: unknown price)."""

    ok: bool
    cache_read: int = 0
    written: int = 0
    cost: float | None = None
    error: str = ""


def replay(request: Request, cache: CacheModel) -> Request:
    """The keep-warm of `request` on `cache`: the same prefix with no (or a 1-token)
    answer, or a `prewarm` (GPT-5.6+: the cache prepared, nothing generated)."""
    return cache.refresh(request)


def keep_warm(caller: ModelCaller, cancel: CancelToken) -> KeepWarmResult:
    """Send the keep-warm read for the caller's last request and account for it."""
    if caller.last_sent is None:
        return KeepWarmResult(False, error="no previous request")
    if caller.budget is not None and caller.budget.refusal():
        return KeepWarmResult(False, error="the session spend limit is reached")
    cache = caller.cache_model()
    if cache.keep_warm != "replay":
        return KeepWarmResult(False, error=f"{caller.model}'s cache is not kept warm by a read")
    request = replay(caller.last_sent[0], cache)
    sent_at = caller.clock()
    try:
        reply = _drain(stream_with_retries(caller.provider, request, ONE_TRY, cancel, text=False))
    except CancelledMidStream as exc:
        return _account(caller, request, exc.partial, sent_at, ok=False, error="cancelled")
    except TransientProviderError as exc:
        return KeepWarmResult(False, error=exc.message)
    except Exception as exc:  # noqa: BLE001 - a background read must never kill the keeper
        return KeepWarmResult(False, error=str(exc) or type(exc).__name__)
    return _account(caller, request, reply, sent_at)


def _drain(stream: object) -> object:
    gen = iter(stream)  # type: ignore[call-overload]
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        return stop.value


def _account(caller: ModelCaller, request: Request, reply: object, sent_at: float, *,
             ok: bool = True, error: str = "") -> KeepWarmResult:
    usage = reply.usage  # type: ignore[attr-defined]
    model = getattr(reply, "model", "") or request.model
    state = caller.state
    # keep-warm reads are spend like any billed call, between turns: spend, not a turn
    event = caller.ledger.record(
        caller.session.id, caller.session.provider, state,
        Billed(usage, model, getattr(reply, "response_id", None), kind=KIND), spend="between")
    if request.model in state.last_by_model:  # the entry was refreshed now
        fp, _when, prompt = state.last_by_model[request.model]
        state.last_by_model[request.model] = (fp, sent_at, prompt)
    state.last_call_time = sent_at
    caller.last_sent = (caller.last_sent[0], sent_at) if caller.last_sent else None
    return KeepWarmResult(ok, usage.cache_read, usage.write_5m + usage.write_1h, event.cost_usd,
                          error)
