"""The REPL's questions at start: trust this project's own .hermes/ settings? Load a
context file hermes itself wrote in an earlier session (`ask_context`, the diff shown)?

Asked once per version of the settings (frontend/project.py keeps the answer with a
fingerprint of `.hermes/`): yes applies them, no is remembered too, and both hold until
the settings change. Ctrl-C or Ctrl-D give no answer: unapplied for this run, asked again
next time. Hooks are mentioned only when the project has some; each command file is
listed with what it attaches and runs (frontend/command_reach.py), outside reach flagged.
"""

from __future__ import annotations

from agent.errors import HermesError
from frontend.visible import visible


def ask_trust(project, changed: bool = False) -> bool | None:
    """Print what the project would apply and read y/N from the terminal; None: no answer."""
    try:
        what = project.summary()
        hooks = project.has_hooks()
    except HermesError as exc:
        what, hooks = f"its settings have an error: {exc.message}", False
    again = " changed since you last answered" if changed else ""
    where = project.folders
    print(f"This project has its own hermes settings{again}: {where} ({what}).")
    for line in command_lines(project):
        print(f"  {visible(line)}")  # whoever wrote the project chose it: controls written out
    if hooks:
        print("Its hooks run commands (in the tool sandbox unless marked `sandbox: host`), and "
              "a cloned repository's settings are whoever wrote them.")
        host = project.host_hooks()
        if host:
            print("These run on this machine OUTSIDE the sandbox, with your access:")
            for line in host:
                print(f"  {visible(line)}")
    return _yes_no("Trust this project and apply them (asked once for these settings)? [y/N] ")


MAX_COMMANDS = 40


def command_lines(project) -> list[str]:
    """What each of the project's command files attaches and runs, one line each."""
    from frontend.command_reach import describe  # lazy: only when the question is asked
    from frontend.custom_commands import load

    commands = load(None, project.command_dirs, []).commands
    lines = [describe(c, project.root) for c in commands[:MAX_COMMANDS]]
    if len(commands) > MAX_COMMANDS:
        lines.append(f"... and {len(commands) - MAX_COMMANDS} more command files (read them in the folder)")
    return lines


MAX_DIFF_LINES = 120


def ask_context(path, diff: str) -> bool | None:
    """A context file hermes wrote in an earlier session: show the change once, read y/N
    (agent/prompts/authored_context.py keeps the answer for these bytes); None: no answer."""
    lines = diff.splitlines()
    print(f"hermes wrote {path} in an earlier session; it becomes part of every session's "
          "instructions here only if you approve it. The change:")
    for line in lines[:MAX_DIFF_LINES]:
        print(f"  {visible(line)}")  # the model wrote it: its controls written out
    if len(lines) > MAX_DIFF_LINES:
        print(f"  ... ({len(lines) - MAX_DIFF_LINES} more lines; read the file itself)")
    return _yes_no("Load it in sessions from now on (asked once for this text)? [y/N] ")


def _yes_no(question: str) -> bool | None:
    """y/N from the terminal; None for Ctrl-C or Ctrl-D (no answer: asked again next time)."""
    try:
        reply = input(question)
    except (EOFError, KeyboardInterrupt):
        print()
        return None
    return reply.strip().lower() in ("y", "yes")
