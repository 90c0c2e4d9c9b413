"""`/expand [thinking]`: the last tool's whole output, file excerpt or diff, or the last
collapsed thinking (when it came after that tool, or when asked for)."""

from __future__ import annotations

from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import UsageError


def cmd_expand(repl: Repl, arg: str) -> None:
    from rich.text import Text

    from hermes_cli.render.renderer import TOOL_MARK
    from hermes_cli.render.tools import outcome

    thinking = repl.renderer.thinking
    if arg.strip() not in ("", "thinking"):
        raise UsageError
    if thinking.last and (arg.strip() == "thinking" or thinking.shown_last):
        repl.renderer.print(thinking.expanded())
        return
    event = repl.renderer.last_tool
    if event is None:
        repl.renderer.info("no tool has run yet in this session")
        return
    repl.renderer.print(Text(f"{TOOL_MARK} {event.name} ({event.duration:.2f}s)", style="dim"))
    if repl.renderer.last_arguments:
        repl.renderer.print(Text(f"  {repl.renderer.last_arguments}", style="dim"))
    shown = outcome(event, full=True)
    if shown is None:
        repl.renderer.info("  (no output)")
    else:
        repl.renderer.print(shown)


HANDLERS = {"expand": cmd_expand}
