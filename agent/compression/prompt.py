"""The summariser's request and the summary message: pure text builders.

The middle of the history is rendered as a plain transcript in which every tool output
is pruned to a one-line digest (the summariser needs what was done, not the bytes read).
A previous summary is handed over to be updated, never summarised as conversation.
"""

from __future__ import annotations

from agent.compression.plan import Plan
from agent.messages import Message, Request, SystemBlock, ToolCall
from agent.prompts.untrusted import unframe

SUMMARY_PREFIX = "[Summary of earlier conversation]"
HEADINGS = (
    "Goal",
    "Constraints and preferences",
    "Done so far",
    "Current state",
    "Decisions",
    "Open questions",
    "Pending user asks",
    "Files touched",
)
SUMMARY_MAX_TOKENS = 4096
SUMMARY_TARGET_WORDS = 900
DIGEST_CHARS = 120
ARGS_CHARS = 100

SYSTEM = (
    "You write handover notes for an AI coding agent whose conversation has grown too long. "
    "Another instance of the agent will continue the work from your notes plus the most "
    "recent messages, which it keeps verbatim. Be factual and specific: names, paths, "
    "commands, numbers, error messages. Never invent anything; do not address the user."
)


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def tool_digest(message: Message, call: ToolCall | None) -> str:
    """One line standing for a tool output: tool, arguments, status, size, first line."""
    name = message.tool_name or (call.name if call else "tool")
    args = _clip(call.arguments, ARGS_CHARS) if call else ""
    status = "error" if message.is_error else "ok"
    text = unframe(message.content).strip()
    lines = text.count("\n") + 1 if text else 0
    first = _clip(text.splitlines()[0], DIGEST_CHARS) if text else "(empty)"
    shown = "".join(" " + image.mention() for image in message.images)
    return (f"[{name}({args}) -> {status}, {lines} lines / {len(text):,} chars; first line: "
            f"{first}]{shown}")


def transcript(messages: tuple[Message, ...]) -> tuple[str, int]:
    """The messages as a readable transcript with pruned tool outputs; (text, digests)."""
    calls: dict[str, ToolCall] = {}
    parts: list[str] = []
    digests = 0
    for message in messages:
        if message.role == "tool":
            call = calls.get(message.tool_call_id or "")
            parts.append("TOOL RESULT " + tool_digest(message, call))
            digests += 1
            continue
        label = "USER" if message.role == "user" else "ASSISTANT"
        if message.kind:
            label += f" ({message.kind})"
        # an image summarised away becomes its mention: name and size, no pixels
        shown = " ".join(image.mention() for image in message.images)
        if message.content.strip() or shown:
            parts.append(f"{label}: {' '.join(x for x in (shown, message.content.strip()) if x)}")
        for call in message.tool_calls:
            calls[call.id] = call
            parts.append(f"ASSISTANT called {call.name}({call.arguments})")
    return "\n\n".join(parts), digests


def summary_body(message: Message) -> str:
    """The summary text of a kind="summary" message, without our header lines."""
    text = message.content
    if text.startswith(SUMMARY_PREFIX):
        text = text.split("\n\n", 1)[1] if "\n\n" in text else text[len(SUMMARY_PREFIX):]
    return text.strip()


def instructions(focus: str | None, updating: bool) -> str:
    """What the summariser is asked to write."""
    headings = "\n".join(f"## {h}" for h in HEADINGS)
    lines = [
        "Write the handover notes in Markdown with exactly these headings, in this order "
        "(write 'none' under a heading with nothing to say):",
        headings,
        f"Keep it under about {SUMMARY_TARGET_WORDS} words. Reply with the notes only.",
    ]
    if updating:
        lines.insert(0, "Update the previous summary with the conversation that followed it: "
                        "keep what still holds, correct what changed, drop what is obsolete.")
    if focus and focus.strip():
        lines.append(f"The user asked the notes to focus on: {focus.strip()}")
    return "\n\n".join(lines)


def summary_prompt(plan: Plan, focus: str | None) -> tuple[str, int]:
    """The user message for the summariser; (text, number of pruned tool outputs)."""
    body, digests = transcript(plan.middle)
    sections: list[str] = []
    if plan.head:
        sections.append("<first-request kept-verbatim>\n"
                        f"{plan.head[0].content.strip()}\n</first-request>")
    if plan.previous is not None:
        sections.append("<previous-summary - update it>\n"
                        f"{summary_body(plan.previous)}\n</previous-summary>")
    sections.append("<conversation-to-summarise (tool outputs shown as one-line digests)>\n"
                    f"{body}\n</conversation-to-summarise>")
    sections.append(instructions(focus, plan.previous is not None))
    return "\n\n".join(sections), digests


def summary_request(plan: Plan, model: str, focus: str | None, max_tokens: int) -> Request:
    """The summariser call: one user message, no tools, no cache markers."""
    text, _ = summary_prompt(plan, focus)
    return Request(
        model=model,
        system=[SystemBlock(SYSTEM)],
        messages=[Message("user", text)],
        tools=[],
        max_tokens=min(max_tokens, SUMMARY_MAX_TOKENS),
    )


def summary_message(summary: str, parent_id: str, summarised: int) -> Message:
    """The seam message: role user, kind "summary", starting with SUMMARY_PREFIX."""
    note = (f"({summarised} earlier messages were replaced by this summary; the full text "
            f"stays in session {parent_id}.)")
    return Message("user", f"{SUMMARY_PREFIX}\n{note}\n\n{summary.strip()}", kind="summary")
