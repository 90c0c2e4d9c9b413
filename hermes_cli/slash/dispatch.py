"""Slash-command dispatch, plus the commands that touch the model or the prompt cache.

Every command comes from the one table (frontend.command_table); this module maps names to
handlers. A handler that raises a user-facing error (HermesError, HermesMemoryError)
prints one error line; the REPL always continues.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from rich.table import Table
from rich.text import Text

from agent.errors import HermesError
from frontend import commands as shared
from frontend.budget_text import budget_text
from frontend.command_table import COMMANDS, lookup, suggest
from hermes_cli.slash import autonomy as slash_autonomy
from hermes_cli.slash import custom as slash_custom
from hermes_cli.slash import files as slash_files
from hermes_cli.slash import info as slash_info
from hermes_cli.slash import mcp as slash_mcp
from hermes_cli.slash import plan as slash_plan
from hermes_cli.slash import session as slash_session
from hermes_cli.slash import tools as slash_tools
from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import UsageError, one_word, show, usage_line
from memory.errors import HermesMemoryError

KNOWN_MODELS_SHOWN = 8
SUGGEST_CUTOFF = 0.6  # closer than frontend.command_table.suggest's: "/foo" suggests nothing
UNKNOWN_HINT = "/help lists the commands; start with // to send a message that begins with /"


def dispatch(repl: Repl, name: str, arg: str) -> None:
    """Run `/name arg`; unknown names get a suggestion, bad arguments the usage line."""
    if not name:
        repl.renderer.error("no command name after /", UNKNOWN_HINT)
        return
    command = lookup(name)
    if command is None:
        if not run_custom(repl, name, arg):
            new_file = slash_custom.appeared(name)  # a command file added mid-session
            repl.renderer.error(*(new_file or (unknown_message(name), UNKNOWN_HINT)))
        return
    handler = HANDLERS.get(command.name)
    if handler is None:
        repl.renderer.error(f"/{command.name} is not available in the terminal REPL")
        return
    try:
        if arg and not command.args:
            raise UsageError
        handler(repl, arg)
    except UsageError:
        repl.renderer.error(usage_line(command), f"/help {command.name} explains it")
    except (HermesError, HermesMemoryError) as exc:
        repl.renderer.error(exc.message, getattr(exc, "hint", ""))
    except Exception as exc:  # noqa: BLE001 - a bug in a handler must not end the session
        repl.renderer.error(f"internal error in /{command.name}: {type(exc).__name__}: {exc}",
                            "please report this; the session is kept")


def run_custom(repl: Repl, name: str, arg: str) -> bool:
    """/NAME of a command file (frontend/custom_commands.py): its text runs as a turn."""
    found = slash_custom.find(repl, name)
    if found is None:
        return False
    slash_custom.run(repl, found, arg)
    return True


def custom_commands(repl: Repl) -> list[Any]:
    """The custom commands of this run (known from the config, before the agent is built)."""
    commands = getattr(repl, "commands", None)
    return list(commands.commands) if commands else []


def unknown_message(name: str) -> str:
    """ "unknown command /x - did you mean /y?" """
    names: list[str] = []
    word = name.lstrip("/").lower()
    for candidate in suggest(name):
        command = lookup(candidate)
        close = (candidate.startswith(word)
                 or difflib.SequenceMatcher(None, word, candidate).ratio() >= SUGGEST_CUTOFF)
        if close and command is not None and command.name not in names:
            names.append(command.name)
    if names:
        return f"unknown command /{name} - did you mean {' or '.join('/' + n for n in names)}?"
    return f"unknown command /{name}"


# -- /help /usage /exit ------------------------------------------------------------


def cmd_help(repl: Repl, arg: str) -> None:
    name = one_word(arg).lstrip("/")
    if name:
        command = lookup(name)
        if command is None:
            repl.renderer.error(unknown_message(name), "/help lists the commands")
            return
        repl.renderer.print(Text(f"/{command.name} {command.args}".rstrip(), style="bold"))
        repl.renderer.print(command.help)
        if command.aliases:
            repl.renderer.print("aliases: " + ", ".join("/" + a for a in command.aliases))
        if command.cache_effect:
            repl.renderer.notice(f"cache: {command.cache_effect}")
        return
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(no_wrap=True)
    table.add_column()
    for command in COMMANDS:
        text = Text(command.help)
        if command.aliases:
            text.append("  (also " + ", ".join("/" + a for a in command.aliases) + ")", style="dim")
        if command.cache_effect:
            text.append(f"  (cache: {command.cache_effect})", style="yellow")
        table.add_row(Text(f"/{command.name} {command.args}".rstrip()), text)
    for custom in custom_commands(repl):  # never shadowing a built-in (skipped at load)
        table.add_row(Text(f"/{custom.name} {custom.hint}".rstrip()),
                      Text(f"{custom.description or 'custom command'}  ({custom.scope}: "
                           f"{custom.path})", style="cyan"))
    repl.renderer.print(table)
    repl.renderer.print("Enter sends · Alt-Enter newline · Ctrl-R search history · Tab completes "
                        "· Ctrl-C cancels a turn · Ctrl-D quits", style="dim")
    repl.renderer.print("@path attaches a file · !cmd runs a command yourself · !!cmd also "
                        "sends its output with your next message · \\!text and //text send "
                        "a message starting with ! or /", style="dim")


def cmd_usage(repl: Repl, arg: str) -> None:
    from hermes_cli.render.usage import no_calls_line, render_report

    report = shared.usage(shared.Handle(repl.agent), arg).data
    if report.session.calls == 0:
        repl.renderer.print(no_calls_line(report, model=repl.agent.model))
    else:
        render_report(repl.console, report)
    if repl.agent.config.budget.any:
        repl.renderer.print(Text("budget: " + budget_text(repl.agent.budget.status())))


def cmd_exit(repl: Repl, arg: str) -> None:
    repl.request_exit()


# -- /model /personality /compress (deliberate cache breaks) -------------------------


def cmd_model(repl: Repl, arg: str) -> None:
    agent = repl.agent
    name = one_word(arg)
    if not name:
        repl.renderer.print(Text(f"current model: {agent.model} ({agent.provider_name})"))
        known = [value for value, _ in slash_info.model_choices(agent) if value != agent.model]
        shown = ", ".join(known[:KNOWN_MODELS_SHOWN])
        more = " … (Tab completes the rest)" if len(known) > KNOWN_MODELS_SHOWN else ""
        repl.renderer.print(Text(f"known models: {shown}{more}", style="dim"))
        return
    show(repl, shared.model(shared.Handle(agent), name))  # says the re-send and its cost


def cmd_personality(repl: Repl, arg: str) -> None:
    agent = repl.agent
    name = one_word(arg)
    table = slash_info.personality_choices()
    if not name:
        current = agent.session.choices.personality
        for key, text in table.items():
            mark = "*" if key == current else " "
            repl.renderer.print(Text(f"{mark} {key:<12} {slash_info.short(text, 70)}"))
        repl.renderer.print(Text(f"{'*' if current is None else ' '} none", style="dim"))
        return
    reply = shared.personality(shared.Handle(agent, table), name)
    if reply.level == "error":
        raise HermesError(reply.text.rstrip("."), f"available: {', '.join(table)}, none")
    show(repl, reply)  # the notice says the re-send and its cost


def cmd_reasoning(repl: Repl, arg: str) -> None:
    show(repl, shared.reasoning(shared.Handle(repl.agent), arg))  # says what a change costs


def cmd_compress(repl: Repl, arg: str) -> None:
    """The shared /compress (frontend.commands), its events streamed as they come."""
    parsed = shared.compress_args(arg)
    if isinstance(parsed, shared.Reply):
        raise UsageError
    focus, preview = parsed
    # compression announces itself (and its cache rewrite) only when it changes something
    agent = repl.agent
    repl.run_events(lambda cancel: agent.compress(focus=focus, preview=preview, cancel=cancel))


def cmd_cron(repl: Repl, arg: str) -> None:
    """The shared /cron (frontend.commands): the scheduled jobs, listed or changed."""
    show(repl, shared.run(shared.Handle(repl.agent), "cron", arg))  # type: ignore[arg-type]


HANDLERS: dict[str, Callable[[Repl, str], None]] = {
    "help": cmd_help,
    "cron": cmd_cron,
    "usage": cmd_usage,
    "compress": cmd_compress,
    "model": cmd_model,
    "personality": cmd_personality,
    "reasoning": cmd_reasoning,
    "exit": cmd_exit,
    **slash_session.HANDLERS,
    **slash_info.HANDLERS,
    **slash_tools.HANDLERS,
    **slash_files.HANDLERS,
    **slash_mcp.HANDLERS,
    **slash_plan.HANDLERS,
    **slash_autonomy.HANDLERS,
}
