"""The summary call: which request it sends and what it will cost (pure functions).

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
not the session's model (the cache is per model), or when the session's prompt itself
no longer fits the window (the prompt-too-long retry), the call sends the pruned
transcript instead (compression_prompt.summary_request): at full price, it is smaller
than re-sending, and re-writing, the whole history.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent.compression_plan import Plan, history_tokens
from agent.compression_prompt import instructions, summary_body
from agent.messages import Message, Request
from agent.tokens import estimate_tokens

INSTRUCTION_MARK = "[hermes: context compaction]"
QUOTE_CHARS = 60
ESTIMATED_SUMMARY_TOKENS = 1200  # upper bound of the summary size estimates assume


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
