"""Rich rendering of a turn's events: streamed markdown, tool lines, spinner, notices.

On a terminal one transient `Live` region holds either a spinner (waiting for the model
or a tool) or the markdown block being streamed; finished blocks are printed above it
for good, so the live region stays small and never scrolls. An open block taller than
the screen (a long code block) shows its last lines while it streams, and is printed in
full once it ends. On a non-terminal output (a pipe, a file) text is written as it
arrives, with no ANSI codes at all.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from agent.events import (
    Done,
    ErrorEvent,
    Event,
    Notice,
    SubagentProgress,
    TextDelta,
    ThinkingDelta,
    TodoChanged,
    ToolFinished,
    ToolStarted,
    UsageEvent,
)
from hermes_cli.render.progress import subagent_text, todo_text
from hermes_cli.render.stream import (
    LIVE_SPARE_ROWS,
    BlockSplitter,
    Tail,
    Trimmed,
    Work,
    code_preview,
    markdown,
)
from hermes_cli.render.thinking import ThinkingView

if TYPE_CHECKING:  # rich.live loads with the first live view (start-up speed)
    from rich.live import Live

SPINNER = "dots"
WAITING = "thinking…"
TOOL_MARK = "⚙"
REFRESH_PER_SECOND = 12
TEXT_INTERVAL = 0.1  # seconds between two renders of streamed text, however fast it comes
DETAIL_CHARS = 72
ERROR_HINT = "the session is kept; /retry sends your message again"


def tool_line(name: str, summary: str, duration: float, ok: bool, detail: str = "") -> Text:
    """`⚙ read_file {"path":"a.txt"} 0.02s ok` (compact JSON, status coloured); a failed
    call adds the first line of its error."""
    line = Text(f"{TOOL_MARK} {name} ", style="dim")
    line.append(compact_args(summary), style="dim")
    line.append(f" {duration:.2f}s ", style="dim")
    line.append("ok" if ok else "failed", style="green" if ok else "bold red")
    detail = " ".join(detail.split())
    if not ok and detail:
        cut = detail if len(detail) <= DETAIL_CHARS else detail[: DETAIL_CHARS - 1] + "…"
        line.append(f": {cut}", style="red")
    return line


def compact_args(summary: str) -> str:
    """Tool arguments as compact JSON when they parse; otherwise as given."""
    try:
        return json.dumps(json.loads(summary), ensure_ascii=False, separators=(",", ":"))
    except (ValueError, TypeError):
        return summary


class Renderer:
    """Renders one turn at a time to `console`; `handle(event)` for each event."""

    def __init__(self, console: Console, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        self.live_ok = console.is_terminal and not console.is_dumb_terminal
        self._live: Live | None = None
        self._status_label = WAITING
        self._clock = clock
        self._blocks = BlockSplitter()  # streamed text not yet printed for good
        self._last_render = float("-inf")
        self._behind = False  # text arrived that the screen does not show yet
        self._text_closed = False  # after Ctrl-C: what still arrives is not shown
        self.reply_shown = 0  # characters of the reply being streamed shown so far
        self.work = Work()
        self.last_tool: ToolFinished | None = None  # for /expand
        self.last_arguments = ""  # the last tool's arguments, for /expand
        self._plain_open = False  # plain mode: the last write did not end a line
        self._blocks_printed = False  # markdown blocks of the current answer already out
        self._tools: dict[str, tuple[str, str, str]] = {}
        self.cancel_shown = False
        self.thinking = ThinkingView()  # collapsed; /expand shows the last one

    # -- turn lifecycle -------------------------------------------------------------
    def start_turn(self) -> None:
        """Show the spinner until the first token or tool call."""
        self.cancel_shown = False
        self._blocks.take_all()
        self._text_closed = False
        self.reply_shown = 0
        self._blocks_printed = False
        self._tools.clear()
        self._status_label = WAITING
        self._start_live()

    def end_turn(self) -> None:
        """Flush the streamed text and remove the live region."""
        self._close_thinking()
        self._flush_text(final=True)
        self._stop_live()
        if self._plain_open:
            self.console.file.write("\n")
            self.console.file.flush()
            self._plain_open = False

    def pause(self) -> None:
        """Stop the live region (before asking the user something mid-turn)."""
        self._flush_text(final=True)
        self._stop_live()
        self._end_plain_line()

    def resume(self) -> None:
        self._status_label = WAITING
        self._start_live()

    # -- events ---------------------------------------------------------------------
    def handle(self, event: Event) -> None:
        """Render one agent event."""
        if isinstance(event, ThinkingDelta):
            self._set_status(self.thinking.add(event.text))
            return
        self._close_thinking()
        if isinstance(event, TextDelta):
            self._text(event.text)
        elif isinstance(event, UsageEvent):  # a call ended: the next reply starts at 0
            self.reply_shown = 0
        elif isinstance(event, ToolStarted):
            self._flush_text(final=True)
            self._blocks_printed = False
            self._tools[event.call_id] = (event.name, event.summary, event.arguments)
            self._set_status(f"{TOOL_MARK} {event.name} {compact_args(event.summary)}")
        elif isinstance(event, ToolFinished):
            name, summary, self.last_arguments = self._tools.pop(event.call_id,
                                                                 (event.name, "", ""))
            self.print(tool_line(name, summary, event.duration, event.ok, event.summary))
            self._tool_outcome(event)
            self._set_status(WAITING)
        elif isinstance(event, Notice):
            self.notice(event.text)
        elif isinstance(event, ErrorEvent):
            self.error(event.message, event.hint or ERROR_HINT)
        elif isinstance(event, Done):
            self._done(event)
        elif isinstance(event, TodoChanged | SubagentProgress):
            self.print(todo_text(event) if isinstance(event, TodoChanged) else subagent_text(event))

    def _tool_outcome(self, event: ToolFinished) -> None:
        """A few lines of what the tool did; `/expand` shows the last one in full."""
        from hermes_cli.render.tools import outcome

        self.last_tool = event
        self.thinking.shown_last = False
        preview = outcome(event)
        if preview is not None:
            self.print(preview)

    @property
    def tool_running(self) -> bool:
        """A tool call of the current turn has started and not finished."""
        return bool(self._tools)

    def _done(self, event: Done) -> None:
        if event.reason == "cancelled":
            self.cancelled()
        elif event.reason == "max_iterations":
            self.notice("stopped at the tool-iteration limit (--max-turns)")

    def _close_thinking(self) -> None:
        line = self.thinking.close()
        if line is not None:
            self.print(line)
            self._set_status(WAITING)

    # -- plain lines ----------------------------------------------------------------
    def print(self, *objects, **kwargs) -> None:
        """Print above the live region (or as a plain line)."""
        self._end_plain_line()
        kwargs.setdefault("markup", False)
        self.console.print(*objects, **kwargs)

    def notice(self, text: str) -> None:
        self.print(Text(text, style="yellow"))

    def info(self, text: str) -> None:
        self.print(Text(text))

    def error(self, message: str, hint: str = "") -> None:
        self.print(Text(f"error: {message}", style="bold red"))
        if hint:
            self.print(Text(f"  hint: {hint}", style="red"))

    def cancelled(self) -> None:
        """Say "cancelled" once per turn."""
        if self.cancel_shown:
            return
        self.cancel_shown = True
        self._flush_text(final=True, cut=True)
        self._text_closed = True
        self.print(Text("cancelled", style="yellow"))

    # -- streamed text --------------------------------------------------------------
    def _text(self, text: str) -> None:
        if self._text_closed:
            return
        self.reply_shown += len(text)  # on screen now, or flushed by `cancelled()`
        if not self.live_ok:
            self.console.file.write(text)
            self.console.file.flush()
            self._plain_open = not text.endswith("\n")
            return
        self._blocks.feed(text)
        self._behind = True
        self.tick()

    def tick(self) -> None:
        """Show text that arrived since the last render, at most every TEXT_INTERVAL
        (called per chunk, and by the turn runner while the stream is quiet)."""
        if self._behind and self._clock() - self._last_render >= TEXT_INTERVAL:
            self._flush_text(final=False)

    def text_due(self) -> float | None:
        """Seconds until `tick()` would show held-back text; None when none is held."""
        if not self._behind:
            return None
        return max(0.0, TEXT_INTERVAL - (self._clock() - self._last_render))

    def _flush_text(self, final: bool, cut: bool = False) -> None:
        """Print finished markdown blocks for good; keep the open tail in the live region.
        Throttled by the caller, and each call costs the new text plus one screenful."""
        self._last_render = self._clock()
        self._behind = False
        if final:
            done = self._blocks.take_all(close_fence=cut)
        else:
            done = "".join(self._blocks.take_done())
        if done.strip():
            if self._blocks_printed:
                self.console.print()  # one blank line between blocks, as in one render
            self._blocks_printed = True
            self.work.committed_chars += len(done)
            self.work.blocks += 1
            self.console.print(Trimmed(markdown(done)))
        if self._live is not None:
            self._live.update(self._renderable(), refresh=True)

    def _set_status(self, label: str) -> None:
        self._status_label = label
        if self._live is not None:
            self._live.update(self._renderable(), refresh=True)

    def _renderable(self):
        if self._blocks.has_open():
            rows = max(2, self.console.size.height - LIVE_SPARE_ROWS)
            width = self.console.size.width
            code = self._blocks.open_code(rows, width)
            if code is None:
                text, cut = self._blocks.tail(rows, width)
                self.work.note_live(len(text))
                return Tail(markdown(text), cut_above=cut)
            above, lines, cut = code
            self.work.note_live(len(above) + len(lines))
            return Tail(code_preview(above, lines), cut_above=cut)
        from rich.spinner import Spinner

        return Spinner(SPINNER, Text(self._status_label, style="dim"))

    def _start_live(self) -> None:
        if not self.live_ok or self._live is not None:
            return
        from rich.live import Live

        # sys.stdout/stderr stay the real streams: with rich's redirection they are proxies
        # behind the Live lock its refresh thread holds 10 times a second, and a command's
        # child, forked from the turn's thread, that wrote to them before its exec waited
        # on that lock for ever (the Ctrl-C test's hang: `kill -USR1` showed the child in
        # rich's FileProxy.write, called from _fork_exec)
        self._live = Live(self._renderable(), console=self.console, transient=True,
                          refresh_per_second=REFRESH_PER_SECOND, redirect_stdout=False,
                          redirect_stderr=False)
        self._live.start()

    def _stop_live(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            live.stop()

    def _end_plain_line(self) -> None:
        if self._plain_open:
            self.console.file.write("\n")
            self._plain_open = False


def make_console() -> Console:
    """The REPL's console: colour unless NO_COLOR; plain text when not a terminal."""
    return Console(highlight=False, soft_wrap=False)
