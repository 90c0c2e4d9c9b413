"""The REPL's question at start: trust this project's own .hermes/ settings?

Asked once per project (the answer yes is kept, frontend/project.py); no, Ctrl-C or
Ctrl-D leave them unapplied for this run and the question comes back next time.
"""

from __future__ import annotations

from agent.errors import HermesError


def ask_trust(project) -> bool:
    """Print what the project would apply and read y/N from the terminal."""
    try:
        what = project.summary()
    except HermesError as exc:
        what = f"its settings have an error: {exc.message}"
    print(f"This project has its own hermes settings: {project.root}/.hermes ({what}).")
    print("Hooks there run commands on this machine, and a cloned repository's settings "
          "are whoever wrote them.")
    try:
        answer = input("Trust this project and apply them (asked once)? [y/N] ")
    except (EOFError, KeyboardInterrupt):
        print()
        return False
    return answer.strip().lower() in ("y", "yes")
