"""The summary call: which request it sends and what it will read (pure functions of
the session, the settings and the clock).

A compaction's summary call is the most expensive call a long session makes. When the
session's cache is hot it is the session's own last request plus one instruction:
the same tools, system blocks, thinking parameters, tool_choice and history bytes (the
request `ModelCaller.build_request` shapes), so the provider reads everything up to
where the previous request wrote (docs/CACHING.md section 1), followed by one user
message asking for the summary of the part being replaced. Its breakpoints are the
session's own minus the one on the newest message: the instruction and the reply it
follows are never read again, so nothing after the previous request's last
breakpoint is written (on a provider with explicit breakpoints the same filter keeps
the instruction unmarked).

The history's tail needs no special case: after an answer the instruction is a new
user turn; after tool results (a compaction between tool iterations) or a user
message it is merged into that user turn by the adapter, after the tool_result blocks,
which is a valid turn (every tool_use answered, thinking blocks untouched at the start
of their assistant turns).

When the cache is cold (a pause longer than the entry's TTL), when the summary model is
not the session's model (the cache is per model), when the session's prompt itself
no longer fits the window (the prompt-too-long retry), or when reading it would cost
more than CACHED_PREMIUM x the pruned transcript (a model whose reads cost 0.25-0.5x
input), the call sends the pruned transcript instead (agent.compression.prompt.summary_request):
at full price, it is smaller than re-sending, and re-writing, the whole history.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from agent.compression.plan import Plan, history_tokens
from agent.compression.prompt import instructions, summary_body, summary_request
from agent.config import AgentConfig
from agent.cost import pricing
from agent.messages import Message, Request
from agent.providers import models
from agent.providers.cache_model import CacheModel
from agent.providers.registry import cache_model
from agent.sessions.session import Session
from agent.tokens import estimate_tokens
from agent.usage import Usage

INSTRUCTION_MARK = "[hermes: context compaction]"
QUOTE_CHARS = 60
ESTIMATED_SUMMARY_TOKENS = 1200  # upper bound of the summary size estimates assume
# the session's own request shows the summariser every tool output in full, where the
# pruned transcript shows one line of each: worth up to this multiple of its input price
CACHED_PREMIUM = 2.0


@dataclass(frozen=True)
class Forecast:
    """What the summary call will send and read: `form` "cached" (the session's request
    plus an instruction) or "transcript"; `read` None when the provider reports no
    cache data (unknown, never guessed); `why` says why a transcript was chosen."""

    form: str
    prompt: int
    read: int | None
    rewrite: int = 0  # tokens a cache-reading call would have rewritten (cold cache)
    why: str = ""


def _quote(message: Message) -> str:
    text = " ".join(message.content.split())
    if text:
        return f"'{text[:QUOTE_CHARS]}{'...' if len(text) > QUOTE_CHARS else ''}'"
    calls = ", ".join(c.name for c in message.tool_calls)
    return f"the call to {calls}" if calls else "(empty)"


def instruction(work: Plan, focus: str | None, strict: bool = False) -> str:
    """The user message that asks for the summary of the middle (which stays, which goes)."""
    first = work.tail[0] if work.tail else None
    keep = ["the first user message" if work.head else ""]
    if first is not None:
        who = "user" if first.role == "user" else "assistant"
        keep.append(f"the last {len(work.tail)} messages, from the {who} message "
                    f"{_quote(first)} on")
    kept = " and ".join(k for k in keep if k)
    replaced = (f"the {len(work.middle)} messages between them"
                if work.head else f"the first {len(work.middle)} messages")
    lines = [
        f"{INSTRUCTION_MARK} Pause the task: this conversation has grown too long and is "
        f"being compacted. Another instance of you will continue the work from your "
        f"handover notes plus {kept}, which it keeps verbatim. Write the notes for "
        f"{replaced}: the part that will be replaced.",
        "Be factual and specific: names, paths, commands, numbers, error messages. Never "
        "invent anything; do not address the user.",
    ]
    if work.previous is not None:
        lines.append("The previous summary (the user message starting with '[Summary of "
                     "earlier conversation]') is part of what is replaced: fold it in.")
    lines.append(instructions(focus, work.previous is not None))
    lines.append("Do not call any tool: answer with text only." if not strict else
                 "You answered with a tool call. Do not call any tool now: reply with the "
                 "handover notes as plain text, nothing else.")
    return "\n\n".join(lines)


def cached_request(base: Request, work: Plan, focus: str | None, previous_last: int | None,
                   strict: bool = False) -> Request:
    """The session's request `base` plus the instruction (see module docstring).
    `previous_last` is the message index where the session's previous request wrote."""
    points = [p for p in base.breakpoints
              if p.target != "message" or p.index == previous_last]
    message = Message("user", instruction(work, focus, strict), kind="compaction")
    return replace(base, messages=[*base.messages, message], breakpoints=points)


def prompt_estimate(base_tokens: int, work: Plan, focus: str | None) -> int:
    """Estimated prompt of the cached form: the session's prompt plus the instruction."""
    return base_tokens + estimate_tokens(instruction(work, focus))


def summary_estimate(work: Plan) -> int:
    """Estimated size of the summary (what the kept part grows by)."""
    if work.previous is not None:
        return max(200, estimate_tokens(summary_body(work.previous)))
    return min(ESTIMATED_SUMMARY_TOKENS, max(200, history_tokens(work.middle) // 3))


def ttl_seconds(base: Request, previous_last: int, cache: CacheModel) -> float:
    """How long the entry the previous request wrote lives: its marker's lifetime on the
    session's cache model (5m/1h, on GPT-5.6+ the 30m/12h they map to), else (automatic
    caching) 24 h with extended retention, 5 minutes otherwise."""
    for point in base.breakpoints:
        if point.target == "message" and point.index == previous_last:
            return cache.lifetime(point.ttl)
    return 86_400 if base.cache.retention == "24h" else 300


def summary_call(session: Session, config: AgentConfig,  # noqa: PLR0913 - one fact each
                 shape: Callable[[], Request] | None, now: float, work: Plan,
                 focus: str | None, upto: int | None
                 ) -> tuple[Forecast, Callable[[bool], Request]]:
    """The summary call's request (a function of "strict", the retry after a tool call)
    and its forecast: the session's request (`shape`, ModelCaller.build_request) plus an
    instruction when that reads a hot cache, else the pruned transcript (module
    docstring). `now` is the agent's clock; `upto` set means the overflow retry."""
    model = summary_model(config, session)
    plain = summary_request(work, model, focus, config.max_tokens)
    small = estimate_tokens(plain.system[0].text + plain.messages[0].content)
    state = session.calls
    known = state.cache_known

    def transcript(why: str, rewrite: int = 0) -> tuple[Forecast, Callable[[bool], Request]]:
        return Forecast("transcript", small, 0 if known else None, rewrite, why), lambda _: plain

    if shape is None:
        return transcript("no session request to reuse")
    if model != session.model:
        return transcript(f"{model} has no cache of this session's {session.model} prompt")
    if upto is not None:
        return transcript("the session's own prompt no longer fits the context window")
    base = shape()
    last, previous_last = state.last_by_model.get(model), state.last_index_by_model.get(model)
    if base.session_id != session.id or last is None or previous_last is None:
        return transcript("no earlier request of this session to read")
    after = history_tokens(session.conversation.messages[previous_last + 1:])
    prompt = prompt_estimate(last[2] + after, work, focus)
    window = models.context_window(session.model, config.context_windows.get(session.model))
    if prompt + summary_estimate(work) > window:
        return transcript("the session's prompt is too close to the context window")
    age = now - max(last[1], state.last_call_time or 0.0)
    ttl = ttl_seconds(base, previous_last, cache_model(session.provider, model, session.choices.wire(config)))
    if age > ttl:
        return transcript(f"the session's cache expired (last call {age:,.0f}s ago, "
                          f"entries live {ttl:,.0f}s)", prompt)
    if last[2] < models.min_cache_tokens(model):
        return transcript("the session's prompt is below the model's cache minimum")
    step = cache_model(session.provider, model).read_step  # the provider's default wire
    read = (last[2] // step) * step if step else last[2]
    cached = pricing.cost(Usage(cache_read=read, uncached=prompt - read), model, config.prices)
    pruned = pricing.cost(Usage(uncached=small), model, config.prices)
    if known and cached is not None and pruned is not None and cached > CACHED_PREMIUM * pruned:
        return transcript(f"reading ~{read:,} tokens at {model}'s cache price costs more than "
                          f"{CACHED_PREMIUM:g}x the pruned transcript")
    forecast = Forecast("cached", prompt, read if known else None)
    return forecast, lambda strict: cached_request(base, work, focus, previous_last, strict)


def summary_model(config: AgentConfig, session: Session) -> str:
    """The auxiliary model for summaries: `compression_model` where the session's
    provider serves it (a session moved to another provider by /model uses its own),
    else the session's model."""
    wanted = config.compression_model
    return wanted if wanted and models.serves(session.provider, wanted) else session.model
