"""/NAME of a command file in the REPL: Claude Code's format, all of it.

The text is expanded (`$ARGUMENTS`, `$1`..`$9`), its `@path`s attached as typed ones are,
its `` !`cmd` ``s run through the sandboxed terminal tool (their tool lines shown, their
outputs put in place) in the turn's worker so approvals can be asked, all under the
command's `allowed-tools`; a `model:` other than the session's is switched to for this
one message and back after it, each switch with its cost notice (frontend/command_run.py).
A project's file that would attach or run something outside the project is refused
first, nothing sent (frontend/command_reach.py); what the user types is theirs.
"""

from __future__ import annotations

from pathlib import Path

from agent.errors import HermesError
from frontend import commands as shared
from frontend.custom_commands import CustomCommand, shell_commands
from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import show


def find(repl: Repl, name: str) -> CustomCommand | None:
    """The command file for /name, or None (also when the agent failed to build)."""
    try:
        commands = repl.agent.config.commands
    except HermesError:
        return None  # the unknown-command line says enough
    return commands.get(name) if commands else None


def appeared(name: str) -> tuple[str, str] | None:
    """(message, hint) when /name is a command file that appeared after the session was
    built (the user's folder or this project's), else None.

    It is not loaded on the spot: a project's new file changes the project's settings,
    which apply only once the user trusts them again (the question at start), and the
    session's command list is its config's, built once with everything else; `hermes -c`
    continues this session with it - the same tools and system bytes, so the cache holds."""
    from frontend.config.settings import hermes_home  # lazy: only for an unknown name
    from frontend.custom_commands import NAME
    from frontend.project import find as find_project

    word = name.lstrip("/").lower()
    if not NAME.match(word):
        return None
    user = hermes_home() / "commands"
    project = find_project(Path.cwd())
    for folder in (user, *(project.command_dirs if project is not None else ())):
        path = folder / f"{word}.md"
        if path.is_file():
            asks = "" if folder == user else (" (it changed the project's settings, so hermes "
                                              "asks again whether to trust them)")
            return (f"unknown command /{word} - the command file {path} appeared after this "
                    "session started; command files are read when hermes starts",
                    f"exit and run `hermes -c` to continue this session with it{asks}")
    return None


def run(repl: Repl, command: CustomCommand, arg: str) -> None:
    """Run /NAME arg as one turn (see module docstring)."""
    from frontend.command_run import allowance, allowed, prelude, refusal  # lazy: with the agent

    agent = repl.agent
    try:
        allowance(command)  # a bad `allowed-tools` line stops here, before anything runs
    except HermesError as exc:
        repl.renderer.error(exc.message, exc.hint)
        return
    refused = refusal(command, Path(agent.tool_ctx.cwd), arg)  # outside the project: nothing runs
    if refused is not None:
        repl.renderer.error(*refused)
        return
    text = command.expand(arg)
    lines = shell_commands(text)
    attached = repl.attach(text)  # @paths of the command text, before any output
    if attached is None:
        return
    text, images = attached
    previous = agent.model
    if command.model and command.model != previous:
        reply = shared.model(shared.Handle(agent), command.model)
        show(repl, reply)
        if reply.level == "error":
            return

    try:
        with allowed(agent, command):
            repl.run_turn_events(lambda cancel: agent.run_turn(
                text, cancel, images=images, prelude=prelude(agent, lines) if lines else None))
    finally:
        if agent.model != previous:
            show(repl, shared.model(shared.Handle(agent), previous))
