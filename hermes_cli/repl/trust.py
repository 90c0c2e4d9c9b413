"""The REPL's question at start: trust this project's own .hermes/ settings?

Asked once per version of the settings (frontend/project.py keeps the answer with a
fingerprint of `.hermes/`): yes applies them, no is remembered too, and both hold until
the settings change. Ctrl-C or Ctrl-D give no answer: unapplied for this run, asked again
next time. Hooks are mentioned only when the project has some.
"""

from __future__ import annotations

from agent.errors import HermesError


def ask_trust(project, changed: bool = False) -> bool | None:
    """Print what the project would apply and read y/N from the terminal; None: no answer."""
    try:
        what = project.summary()
        hooks = project.has_hooks()
    except HermesError as exc:
        what, hooks = f"its settings have an error: {exc.message}", False
    again = " changed since you last answered" if changed else ""
    print(f"This project has its own hermes settings{again}: {project.root}/.hermes ({what}).")
    if hooks:
        print("Its hooks run commands on this machine, and a cloned repository's settings "
              "are whoever wrote them.")
    try:
        reply = input("Trust this project and apply them (asked once for these settings)? [y/N] ")
    except (EOFError, KeyboardInterrupt):
        print()
        return None
    return reply.strip().lower() in ("y", "yes")
