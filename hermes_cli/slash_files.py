"""`/diff`: what the session changed in files, coloured and collapsed like tool diffs."""

from __future__ import annotations

from frontend import commands as shared
from hermes_cli.slash_api import ReplLike as Repl
from hermes_cli.slash_api import UsageError, show

DIFF_FILE_LINES = 12  # per file unless --full


def cmd_diff(repl: Repl, arg: str) -> None:
    from rich.text import Text

    from hermes_cli.render_tools import diff_text

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


HANDLERS = {"diff": cmd_diff}
