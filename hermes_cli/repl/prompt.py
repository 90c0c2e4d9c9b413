"""The REPL's prompt_toolkit session: line editing, history, completion, toolbar."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

# Function-level imports below: prompt_toolkit and the completers load when the REPL
# builds its prompt (start-up speed of every other command).


def prompt_session(repl):
    """The REPL's PromptSession: history file, Tab completion of slash commands and
    @paths, Alt-Enter newlines, Shift-Tab for plan mode, Ctrl-Z suspends (the shell's
    `fg` resumes, forked from the warm server too), the usage toolbar (`repl._toolbar`)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import merge_completers
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings

    from frontend.config.settings import hermes_home
    from hermes_cli.repl.completion import MentionCompleter, SlashCompleter, complete_now
    from memory.private import private_file

    completer = merge_completers([SlashCompleter(completion_sources(repl)),
                                  MentionCompleter()])
    bindings = KeyBindings()

    @bindings.add("tab")
    def _complete(event) -> None:
        complete_now(event.current_buffer, completer)

    @bindings.add("escape", "enter")
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("c-z")
    def _suspend(event) -> None:  # job control as in a shell (not a ^Z sent to the model)
        from prompt_toolkit.application import run_in_terminal

        from hermes_cli.warm import terminal

        run_in_terminal(terminal.suspend)  # the terminal as the shell left it; `fg` redraws

    @bindings.add("s-tab")
    def _mode(event) -> None:  # Claude Code's key: default <-> plan mode
        from hermes_cli.repl.app import in_terminal
        from hermes_cli.repl.plan_mode import cycle

        if not event.current_buffer.text:
            event.app.exit(result="/plan")  # as if typed: waits for a starting session
        elif repl.ready:  # keep the line being typed; switch in place
            in_terminal(lambda: repl.renderer.notice(cycle(repl)))
        else:
            in_terminal(lambda: repl.renderer.notice("the session is still starting: "
                                                     "Shift-Tab again in a moment"))

    home = hermes_home()
    private_file(home / "repl_history")  # 0600 in a 0700 HERMES_HOME
    return PromptSession(
        history=FileHistory(str(home / "repl_history")),
        completer=completer,
        complete_while_typing=True,
        bottom_toolbar=lambda: repl._toolbar,
        key_bindings=bindings,
        multiline=False,
        prompt_continuation=lambda width, line, wrap: "… ".rjust(width),
    )


def completion_sources(repl) -> dict[str, Callable[[], Iterable[tuple[str, str]]]]:
    """What Tab offers after /model, /personality, /skill and /resume."""
    from hermes_cli.slash.info import (  # lazy: start-up speed
        model_choices,
        personality_choices,
        short,
    )

    def skills() -> Iterator[tuple[str, str]]:
        for skill in repl.agent.skills.skills.values():
            yield skill.name, short(skill.description, 50)

    def sessions() -> Iterator[tuple[str, str]]:
        for row in repl.agent.store.list_sessions(limit=20):
            yield row["id"], short(str(row.get("title") or row.get("preview") or ""), 50)

    def commands() -> Iterator[tuple[str, str]]:
        from hermes_cli.slash.dispatch import custom_commands  # lazy: start-up speed

        for command in custom_commands(repl):
            yield command.name, short(command.description or f"custom ({command.scope})", 50)

    return {
        "commands": commands,
        "model": lambda: model_choices(repl.agent),
        "personality": lambda: [(name, "") for name in [*personality_choices(), "none"]],
        "skill": skills,
        "session": sessions,
    }
