"""Firing a hook event for a session: the payload each event gets, and what the runtime
does with the answers (docs/HOOKS.md).

Every payload has `session_id`, `cwd` and `hook_event_name`; per event: `prompt`
(UserPromptSubmit), `source` (SessionStart), `tool_name` + `tool_input` (PreToolUse,
PostToolUse), `tool_response` (PostToolUse), `stop_hook_active` + `last_message`
(Stop, SubagentStop), `trigger` + `custom_instructions` (PreCompact), `message`
(Notification). The commands matching an event run one after another; the first that
blocks ends the run. Only UserPromptSubmit, PreToolUse, PostToolUse, Stop and
SubagentStop can block; a block from another event is shown as a warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.hooks.config import Command, Hooks
from agent.hooks.confine import HookBox
from agent.hooks.runner import Answer, Environment, run

if TYPE_CHECKING:
    from agent.cancel import CancelToken

BLOCKING = frozenset({"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop"})
WITH_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})


@dataclass
class SessionHooks:
    """One agent's hooks: what is configured and the environment their processes get.
    A sub-agent's Stop is fired as SubagentStop."""

    hooks: Hooks
    env: Environment
    subagent: bool = False
    place: HookBox | None = None  # the sandbox hooks run in (None: on the host)

    def close(self) -> None:
        """End the hooks' sandbox (its namespaces and whatever a hook left running)."""
        if self.place is not None:
            self.place.close()

    def fire(self, event: str, session_id: str, subject: str | None = None, *,
             cancel: CancelToken | None = None, **fields: object) -> Answer:
        """Run the commands of `event` (matched on `subject`) with the payload `fields`;
        their answers folded into one (never raises). `cancel`: the turn's CancelToken
        (a cancelled turn stops the hook running and runs no more)."""
        commands = self.hooks.commands(event, subject)
        if not commands:
            return Answer()
        cwd = Path(self.env.cwd)
        payload = {"session_id": session_id, "cwd": str(cwd), "hook_event_name": event, **fields}
        env = self.env.for_process(session_id)
        context: list[str] = []
        warnings: list[str] = []
        seconds = 0.0
        cancelled = (lambda: cancel.cancelled) if cancel is not None else None
        box = self.place.prepare(self._all(), env) if self.place is not None else None
        for command in commands:
            if self.place is None:
                answer = run(command, payload, env, cwd, cancelled)
            else:
                inside = env if command.host else self.place.environment(box, env)
                answer = run(command, payload, inside, cwd, cancelled, self.place.where(command, box))
            seconds += answer.seconds
            if cancelled is not None and cancelled():  # nothing more runs; a tool neither
                return Answer(event in BLOCKING, "the turn was cancelled", "", (), seconds)
            warnings.extend(f"{event} {w}" for w in answer.warnings)
            if answer.context and event in WITH_CONTEXT:
                context.append(answer.context)
            if answer.blocked and event in BLOCKING:
                return Answer(True, answer.reason, "\n\n".join(context), tuple(warnings), seconds)
            if answer.blocked:
                warnings.append(f"{event} hook `{command.command}` cannot block: {answer.reason}")
        return Answer(False, "", "\n\n".join(context), tuple(warnings), seconds)

    def _all(self) -> list[Command]:
        return [c for _name, groups in self.hooks.events for g in groups for c in g.commands]

    # -- the events, one method each (the payload's names are Claude Code's) ----------
    def session_start(self, session_id: str, source: str) -> Answer:
        return self.fire("SessionStart", session_id, source, source=source)

    def prompt(self, session_id: str, text: str, cancel: CancelToken | None = None) -> Answer:
        return self.fire("UserPromptSubmit", session_id, cancel=cancel, prompt=text)

    def pre_tool(self, session_id: str, name: str, args: dict[str, Any],
                 cancel: CancelToken | None = None) -> Answer:
        return self.fire("PreToolUse", session_id, name, cancel=cancel, tool_name=name,
                         tool_input=args)

    def post_tool(self, session_id: str, name: str, args: dict[str, Any], content: str,  # noqa: PLR0913
                  ok: bool, cancel: CancelToken | None = None) -> Answer:
        return self.fire("PostToolUse", session_id, name, cancel=cancel, tool_name=name,
                         tool_input=args, tool_response={"content": content, "is_error": not ok})

    def stop(self, session_id: str, active: bool, last_message: str, cancel: CancelToken | None = None) -> Answer:
        event = "SubagentStop" if self.subagent else "Stop"
        return self.fire(event, session_id, cancel=cancel, stop_hook_active=active,
                         last_message=last_message)

    def pre_compact(self, session_id: str, trigger: str, focus: str | None) -> Answer:
        return self.fire("PreCompact", session_id, trigger, trigger=trigger,
                         custom_instructions=focus or "")

    def notification(self, session_id: str, message: str) -> Answer:
        return self.fire("Notification", session_id, message=message)


def context_suffix(event: str, context: str) -> str:
    """Hook output as it is appended to the user message (the dynamic layer)."""
    if not context.strip():
        return ""
    return f"\n\n<hook-context event=\"{event}\">\n{context.strip()}\n</hook-context>"


STOP_NOTE = ("[hermes] A Stop hook asks you to go on before you finish (this happens at most "
             "once per turn):\n{reason}")
PRE_TOOL_NOTE = "Blocked by a PreToolUse hook: {reason}"
POST_TOOL_NOTE = "\n\n[PostToolUse hook] {reason}"
