"""Plan mode: the session reads and plans, and nothing in the workspace or outside it
changes (see docs/SANDBOX.md, "Plan mode").

The mode is the session's choice (`Choices.mode`), so sub-agents inherit it and a
resumed session keeps it. The tools offered stay the same (no cache miss): tools not
marked read-only refuse at dispatch (agent/permissions/gate.py), and the terminal runs
in a read-only variant of the session's sandbox - no writable roots, no network - kept
beside the ordinary one; where no sandbox is active, the terminal refuses.

The model learns of a change from a short note appended to the next user message's
wire copy (`wire_suffix`, the dynamic layer, stored and re-sent byte-identically), never
from the system prompt. What was last announced is read back from the conversation, so
a resumed (or compacted) session announces again only when it must.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from agent.sandbox.backend import BoxHolder, Sandbox, make_sandbox
from agent.sandbox.policy import SandboxSettings

if TYPE_CHECKING:
    from agent.messages import Message

PLAN = "plan"
MODES = ("", PLAN)
NOTE_ON = ("\n\n<mode>Plan mode is ON: investigate and plan only. Tools that change files, "
           "memory or anything else refuse; the terminal runs read-only without network. "
           "Present the plan; the user ends plan mode with /plan off.</mode>")
NOTE_OFF = "\n\n<mode>Plan mode is OFF: changes are allowed again.</mode>"


def announced(messages: Sequence[Message]) -> str:
    """The mode the model was last told of in this conversation ("" when never)."""
    for message in reversed(messages):
        suffix = getattr(message, "wire_suffix", "") or ""
        if getattr(message, "role", "") != "user" or "<mode>" not in suffix:
            continue
        return PLAN if NOTE_ON in suffix else ""
    return ""


def note(messages: Sequence[Message], mode: str) -> str:
    """The note to append to the next user message, or "" when the model knows."""
    if mode == announced(messages):
        return ""
    return NOTE_ON if mode == PLAN else NOTE_OFF


def readonly_sandbox(ctx: BoxHolder) -> Sandbox:
    """The session's plan-mode sandbox: every path read-only, network off; built on
    first use and kept in `ctx.state.plan_sandbox` (its own namespaces)."""
    box = ctx.state.plan_sandbox
    if box is None:
        settings = getattr(ctx, "sandbox", None) or SandboxSettings()
        settings = replace(settings, writable=(), network="off")
        box = make_sandbox(settings, Path(ctx.home), Path(ctx.cwd))
        box.policy = replace(box.policy, writable=())
        ctx.state.plan_sandbox = box
    return box
