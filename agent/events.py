"""Typed events an agent turn yields; front ends render them, the loop prints nothing."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent.usage import Usage


@dataclass(frozen=True)
class TextDelta:
    """A piece of streamed assistant text."""

    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    """A piece of streamed thinking (extended thinking on). Front ends may ignore it:
    it is never part of the answer; the REPL shows it dimmed and collapsed."""

    text: str


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    name: str
    summary: str  # short argument preview for a progress line
    arguments: str = ""  # all of them, in the tool's parameter order (for /expand)


@dataclass(frozen=True)
class ToolFinished:
    call_id: str
    name: str
    ok: bool
    duration: float
    summary: str = ""  # first line of the result or the error
    content: str = ""  # the whole result as the tool made it (the model may see it framed)
    diff: str = ""  # write_file / patch: unified diff of the change ("" for other tools)


@dataclass(frozen=True)
class UsageEvent:
    """Accounting of one API call, as the provider reported it."""

    usage: Usage
    model: str
    cost_usd: float | None
    miss_cause: str | None = None
    miss_detail: str | None = None


@dataclass(frozen=True)
class Notice:
    """Something the user should know (a cache break, a retry, a fallback)."""

    text: str
    level: Literal["info", "warning"] = "info"


@dataclass(frozen=True)
class ErrorEvent:
    """The turn failed; `message` says what, `hint` how to fix it."""

    message: str
    hint: str = ""


@dataclass(frozen=True)
class Done:
    """The turn ended. `reason`: "answer", "max_iterations", "budget_turn_tokens",
    "budget_session_usd", "cancelled", "error"."""

    answer: str
    reason: str = "answer"


@dataclass(frozen=True)
class TodoChanged:
    """The todo list after the todo tool changed it: (id, content, status) per item."""

    items: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class SubagentProgress:
    """A sub-agent's step, as it happens: `what` is "started", a tool it runs
    ("read_file {...}"), "done" or "failed: why"."""

    goal: str
    what: str


Event = (TextDelta | ThinkingDelta | ToolStarted | ToolFinished | UsageEvent | Notice
         | ErrorEvent | Done | TodoChanged | SubagentProgress)
