"""Files and the project: `/diff` (what the session changed, coloured and collapsed
like tool diffs), `/init` (draft a HERMES.md: a normal model turn with a fixed
instruction, written through write_file so it is checkpointed), `/export`."""

from __future__ import annotations

from pathlib import Path

from frontend import commands as shared
from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import UsageError, show

DIFF_FILE_LINES = 12  # per file unless --full


def cmd_diff(repl: Repl, arg: str) -> None:
    from rich.text import Text

    from hermes_cli.render.tools import diff_text

    word = arg.strip().lower()
    if word not in ("", "--full", "full"):
        raise UsageError
    reply = shared.diff(shared.Handle(repl.agent), "")
    if not reply.data:
        show(repl, reply)
        return
    for name, diff in reply.data:
        lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
        repl.renderer.print(Text(f"{name}  (+{sum(ln.startswith('+') for ln in lines)} "
                                 f"-{sum(ln.startswith('-') for ln in lines)})", style="bold"))
        cut = lines if word else lines[:DIFF_FILE_LINES]
        repl.renderer.print(diff_text("\n".join(cut), None))
        if len(cut) < len(lines):
            repl.renderer.print(Text(f"  … {len(lines) - len(cut)} more diff lines "
                                     "(/diff --full shows them all)", style="dim"))


INIT_PROMPT = (
    "Draft a HERMES.md for the project in the current directory: the context file every "
    "later session here loads first. Look around first (list the top-level files; read the "
    "README, the build/package files and a few central modules), then write it with "
    "write_file as HERMES.md in the current directory. Keep it under ~60 lines of Markdown: "
    "what the project is, how to set it up, build, run and test it (exact commands), the "
    "layout (main directories and what lives there), and the conventions a contributor must "
    "follow (style, tests, commits). Only facts you found in the files; no guesses."
)
INIT_EXISTING = (" A HERMES.md exists already: read it, keep what is still true, fix what "
                 "is not, and add what is missing.")


def cmd_init(repl: Repl, arg: str) -> None:
    exists = (Path.cwd() / "HERMES.md").exists()
    if exists:
        repl.renderer.notice("HERMES.md exists: the model will revise it (/undo puts it back)")
    repl.run_turn(INIT_PROMPT + (INIT_EXISTING if exists else ""))


def cmd_export(repl: Repl, arg: str) -> None:
    """/export [md|json] [PATH]: the session as `hermes sessions export` writes it."""
    from hermes_cli.commands.sessions import export_text

    words = arg.split()
    fmt = words.pop(0) if words and words[0] in ("md", "json") else "md"
    if len(words) > 1:
        raise UsageError
    if words and words[0].isalnum() and "." not in words[0]:  # "xml": a format, not a file
        repl.renderer.error(f"unknown export format {words[0]!r}; nothing written",
                            "formats: md or json - /export [md|json] [PATH] (a file name "
                            f"without an extension: ./{words[0]})")
        return
    agent = repl.agent
    target = Path(words[0]).expanduser() if words else Path(f"hermes-{agent.session_id}.{fmt}")
    if target.exists():
        repl.renderer.error(f"{target} exists already; nothing written",
                            "give another path: /export [md|json] PATH")
        return
    assert agent.store is not None  # the REPL's sessions are stored
    text = export_text(agent.store, agent.session_id, fmt)
    try:
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        repl.renderer.error(f"cannot write {target}: {exc.strerror or exc}",
                            "give a path in a writable directory")
        return
    repl.renderer.info(f"exported session {agent.session_id} ({fmt}, "
                       f"{len(agent.conversation.messages)} messages) to {target}")


HANDLERS = {"diff": cmd_diff, "init": cmd_init, "export": cmd_export}
