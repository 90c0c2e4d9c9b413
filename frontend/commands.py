"""One implementation of each session slash command, shared by every front end.

A command acts on a `Handle` (the session's agent plus what the front end knows: the
personalities it offers) and returns a `Reply`: the text a plain front end shows (the
gateway answers with it as an assistant message, a chat platform sends it), its level,
what changed (so the front end can re-sync its own bookkeeping: the gateway's route
and agent-cache signature, the REPL's approvals) and, where a rich front end renders
more, the structured data (the /usage report). One command calls the model itself:
/compress (its summary call, recorded like any billed call; the REPL streams its events);
/retry hands its message back for the front end to run as a turn.

The cache-breaking ones (/model, /personality, /new) change the agent IN PLACE and say
what the break costs; the same notice text reaches every front end.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent.events import ErrorEvent, Notice
from agent.providers import models
from agent.providers.reasoning import USAGE as REASONING_USAGE
from agent.providers.reasoning import for_model
from agent.providers.reasoning import parse as parse_reasoning
from agent.providers.registry import label
from frontend import command_table as commands
from frontend.autonomy.goal import command as goal_command
from frontend.budget_text import budget_text
from frontend.cron.command import cron as cron_command
from frontend.custom_commands import shell_commands
from frontend.model_switch import destination
from frontend.reasoning_switch import set_reasoning
from frontend.usage_report import UsageReport, build_report
from frontend.usage_text import usage_text

if TYPE_CHECKING:
    from agent.agent import AIAgent

MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+\-\[\]]{0,199}")


@dataclass
class Handle:
    """The session a command acts on."""

    agent: AIAgent
    personalities: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Reply:
    """A command's outcome. `changed`: "" | "model" | "personality" | "session" |
    "reasoning" (in place: no new signature, no rebuild)."""

    text: str
    level: str = "info"  # info | notice | warning | error
    changed: str = ""
    data: Any = None


def valid_model(name: str) -> bool:
    """True when `name` may be sent to the provider and written into a prompt."""
    return MODEL_NAME.fullmatch(name) is not None


def model(handle: Handle, arg: str) -> Reply:
    """/model [NAME]: show the model, or switch in place (one deliberate miss)."""
    agent, name = handle.agent, arg.strip()
    if not name:
        others = [label(s.provider) for s in agent.config.providers
                  if s.provider != agent.provider_name]
        moves = f"; a model {' or '.join(others)} makes moves the session there" if others else ""
        return Reply(f"This session uses {agent.model} ({agent.provider_name}). Switch with "
                     f"/model NAME (the cache is per model: the next call re-sends "
                     f"everything{moves}).")
    if name == agent.model:
        return Reply(f"This session already uses {name}.")
    if not valid_model(name):
        return Reply(f"'{name[:80]}' is not a model name (letters, digits and ._:/@+-[] only). "
                     f"This session still uses {agent.model}.", "error")
    where = destination(name, agent.provider_name, agent.config)
    if where.refusal is not None:  # sending it there fails, or worse, bills the wrong model
        return Reply(f"{where.refusal}. This session still uses {agent.model}.", "error")
    info = models.lookup(name)
    other = ""
    if info is not None and info.provider != where.provider:  # a server that serves any name
        other = f"{name} is an {info.provider} model; this session talks to {where.provider}. "
    notice = agent.switch_model(name, where.provider)  # says the re-send and its cost
    return Reply(other + notice.text + _reasoning_on(agent), "warning", "model")


def _reasoning_on(agent: AIAgent) -> str:
    """What of the reasoning settings the new model cannot take (sent as off/none)."""
    wanted = agent.caller.reasoning
    sent = for_model(wanted, agent.provider_name, agent.model)
    if sent == wanted:
        return ""
    return (f" {agent.model} cannot take {wanted.describe()}: it gets {sent.describe()} "
            "(/reasoning changes it).")


def personality(handle: Handle, arg: str) -> Reply:
    """/personality [NAME|none]: list, or rebuild the stable layer with another one."""
    agent, name = handle.agent, arg.strip()
    table = handle.personalities
    current = agent.session.choices.personality
    if not name:
        listed = [("*" if key == current else " ") + f" {key}" for key in table]
        listed.append(("*" if current is None else " ") + " none")
        return Reply(f"Personality: {current or 'none'}. Available:\n" + "\n".join(listed)
                     + "\nSwitch with /personality NAME|none (rebuilds the system prompt).",
                     data=table)
    if name != "none" and name not in table:
        return Reply(f"Unknown personality '{name}'. Available: "
                     f"{', '.join([*table, 'none'])}.", "error")
    new = None if name == "none" else name
    if new == current:
        return Reply(f"The personality is already {name}.")
    return Reply(agent.set_personality(new, table.get(new) if new else None).text, "warning",
                 "personality")


def reasoning(handle: Handle, arg: str) -> Reply:
    """/reasoning [SETTINGS]: show, or change in place from the next message on (no
    rebuild, no system change; the cached messages are re-sent once)."""
    caller = handle.agent.caller
    current = caller.reasoning
    if not arg.strip():
        return Reply(f"Reasoning: {current.describe()} ({handle.agent.model}). Change with "
                     f"/reasoning {REASONING_USAGE}; a change invalidates the cached messages "
                     "(tools and system stay cached).")
    try:
        new = parse_reasoning(arg, current)
        if new == current:
            return Reply(f"Reasoning is already {current.describe()}.")
        notice = set_reasoning(caller, handle.agent.sessions, new)
    except ValueError as exc:
        return Reply(f"{exc}. Reasoning stays {current.describe()}.", "error")
    return Reply(notice.text, "warning", "reasoning")


def new(handle: Handle, arg: str) -> Reply:
    """/new: a fresh session (the previous one is kept and can be resumed)."""
    return Reply(handle.agent.new_session().text, "notice", "session")


def usage(handle: Handle, arg: str) -> Reply:
    """/usage: the session's report (data) and its one text (frontend/usage_text.py)."""
    agent = handle.agent
    report = session_report(agent)
    extra = [f"Budget: {budget_text(agent.budget.status())}"] if agent.config.budget.any else []
    return Reply(usage_text(report, extra), data=report)


def session_report(agent: AIAgent) -> UsageReport:
    """The /usage report of the agent's session (its compression lineage included)."""
    if agent.store is None:
        raise ValueError("this session has no store")
    return build_report(agent.store, agent.session_id, prices=agent.config.prices,
                        context_windows=agent.config.context_windows,
                        context_tokens=agent.session.calls.context_tokens())


def title(handle: Handle, arg: str) -> Reply:
    """/title [TEXT]: show or set the session's title."""
    agent = handle.agent
    if agent.store is None:
        return Reply("no session store: this session keeps no title")
    if not arg.strip():
        row = agent.store.get_session(agent.session_id) or {}
        return Reply(f"title: {row.get('title') or '(none yet)'}")
    text = " ".join(arg.split())
    agent.store.update_session(agent.session_id, title=text)
    return Reply(f"title set: {text}")


FORCE = ("--force", "force")


def undo(handle: Handle, arg: str) -> Reply:
    """/undo [--force]: drop the last exchange (the cache stays valid up to it) and put
    back the files its turn wrote; refused when one was edited since (unless --force)."""
    from agent.checkpoints import UndoRefused

    word = arg.strip().lower()
    if word and word not in FORCE:
        return Reply(f"/undo takes only --force, got {arg.strip()!r}", "error")
    try:
        notice = handle.agent.undo(force=bool(word))
    except UndoRefused as exc:
        return Reply(f"{exc.message}; {exc.hint}", "error")
    if notice is None:
        return Reply("nothing to undo")
    return Reply(notice.text, "notice")


def diff(handle: Handle, arg: str) -> Reply:
    """/diff: the unified diff of every file this session changed (before its first
    change -> on disk now); `data` is [(file, diff)] for a front end that colours it."""
    store = handle.agent.checkpoints
    changes = store.session_diff(handle.agent.config.cwd) if store is not None else []
    if not changes:
        return Reply("no file changed in this session (or every change was undone)", data=[])
    names = ", ".join(name for name, _ in changes)
    return Reply(f"{len(changes)} file(s) changed: {names}\n" + "".join(d for _, d in changes),
                 data=changes)


def retry(handle: Handle, arg: str) -> Reply:
    """/retry: drop the last exchange; `data` is the message the front end runs again as
    a new turn (None: nothing to retry, or refused because a file it wrote was edited)."""
    from agent.checkpoints import UndoRefused

    agent = handle.agent
    text = agent.last_user_text()
    if text is None:
        return Reply("nothing to retry yet")
    try:
        notice = agent.undo()
    except UndoRefused as exc:
        return Reply(f"{exc.message}; {exc.hint}", "error")
    return Reply(notice.text if notice else "", "notice", "retry", data=text)


def compress_args(arg: str) -> tuple[str | None, bool] | Reply:
    """/compress's arguments: (focus, preview), or the usage error."""
    words = arg.split()
    preview = "--preview" in words
    words = [w for w in words if w != "--preview"]
    if any(w.startswith("--") for w in words):
        return Reply("usage: /compress [--preview] [focus]", "error")
    return " ".join(words) or None, preview


def compress(handle: Handle, arg: str) -> Reply:
    """/compress [--preview] [focus]: summarise the middle of the conversation (calls the
    model for the summary; the notices and errors it gives are the reply's text). The
    REPL streams the same events as they come (hermes_cli/slash/dispatch.py)."""
    parsed = compress_args(arg)
    if isinstance(parsed, Reply):
        return parsed
    said: list[str] = []
    level = "info"
    for event in handle.agent.compress(focus=parsed[0], preview=parsed[1]):
        if isinstance(event, Notice | ErrorEvent) and event_text(event):
            said.append(event_text(event))
            level = "error" if isinstance(event, ErrorEvent) else "notice"
    return Reply("\n".join(said) or "Nothing to compress yet.", level, "session")


def event_text(event: Notice | ErrorEvent) -> str:
    return (event.text if isinstance(event, Notice) else event.message).strip()


def plan(handle: Handle, arg: str) -> Reply:
    """/plan [on|off]: the session's read-only plan mode (toggled without an argument);
    no cache miss: the model hears of it in the next user message."""
    from agent.permissions.plan import PLAN

    word = arg.strip().lower()
    if word not in ("", "on", "off"):
        return Reply("usage: /plan [on|off]", "error")
    agent = handle.agent
    current = agent.session.choices.mode
    mode = (PLAN if word == "on" else "") if word else ("" if current == PLAN else PLAN)
    if mode != current:
        agent.set_mode(mode)
    state = ("ON: tools that change things refuse, the terminal is read-only and offline"
             if mode == PLAN else "off: changes are allowed")
    return Reply(f"plan mode {state} (no cache miss: the model hears it with your next "
                 "message)", "notice", "mode" if mode != current else "")


def custom(handle: Handle, name: str, arg: str) -> Reply | None:
    """/NAME of a custom command (frontend/custom_commands.py): `data` is the message the
    front end runs as a turn; None when there is no such command."""
    found = handle.agent.config.commands.get(name) if handle.agent.config.commands else None
    if found is None:
        return None
    text = found.expand(arg)
    local = [what for what, used in (("!`cmd`", bool(shell_commands(text))),
                                     ("model:", bool(found.model)),
                                     ("allowed-tools:", bool(found.allowed_tools))) if used]
    if local:  # the REPL runs these (hermes_cli/slash/custom.py); nothing runs half
        return Reply(f"/{found.name} uses {' and '.join(local)}, which only the terminal "
                     "REPL runs; it was not sent.", "error")
    return Reply("", "info", "custom", data=text)


def goal(handle: Handle, arg: str) -> Reply:
    """/goal over the gateway: `data` is the goal the front end runs as the request's
    turns (frontend/autonomy/goal.py `run_all`); the REPL runs its own goal between prompts."""
    text, level, spec = goal_command(arg)
    return Reply(text, level, "goal" if spec is not None else "", data=spec)


SHARED: dict[str, Callable[[Handle, str], Reply]] = {
    "model": model, "personality": personality, "new": new, "usage": usage,
    "title": title, "undo": undo, "diff": diff, "reasoning": reasoning, "retry": retry,
    "compress": compress, "plan": plan, "goal": goal,
    "cron": lambda handle, arg: Reply(*cron_command(handle.agent, arg)),  # frontend/cron/
}


def run(handle: Handle, name: str, arg: str) -> Reply | None:
    """Run shared command `name` (canonical, no slash); None when it is not a shared one."""
    command = commands.lookup(name)
    if command is None or command.name not in SHARED:
        return None
    return SHARED[command.name](handle, arg)
