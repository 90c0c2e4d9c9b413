"""Streamed markdown in linear time: finished blocks once, the open tail bounded.

`BlockSplitter` reads streamed text once, line by line, and hands out each finished
markdown block (a paragraph, a closed code fence, a whole list) exactly once. The block
still arriving stays open; `tail()` gives only its last screenful (with the opening
fence line of a code block cut above the window), so showing it costs the size of the
screen, never the size of the reply. `Work` counts what was rendered, for tests.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

LIVE_SPARE_ROWS = 3  # rows of the screen the live region leaves free
_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
CODE_STYLE = "#f8f8f2 on #272822"  # rich's code blocks (monokai)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass
class Work:
    """What the renderer rendered: each streamed character should be committed once,
    and each live update should cost no more than a screenful."""

    committed_chars: int = 0
    blocks: int = 0
    live_updates: int = 0
    live_chars_max: int = 0
    live_chars_total: int = 0

    def note_live(self, chars: int) -> None:
        self.live_updates += 1
        self.live_chars_total += chars
        self.live_chars_max = max(self.live_chars_max, chars)


class BlockSplitter:
    """Splits streamed markdown into finished blocks (at a blank line outside a code
    fence followed by an unindented line that does not continue a list) and an open
    tail. Each character is scanned once."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._partial: list[str] = []  # the line still arriving, in pieces
        self._lines: list[str] = []  # complete lines of the open block
        self._fence_of: list[int] = []  # per line: index of its fence's opening line, or -1
        self._fence: str = ""  # the open fence's marker ("```", "~~~~"), "" outside
        self._fence_start = -1
        self._in_list = False
        self._candidate: int | None = None  # a cut before this line index, if allowed
        self._done: list[str] = []

    @property
    def fenced(self) -> bool:
        """A code fence is open."""
        return bool(self._fence)

    def feed(self, text: str) -> None:
        """Take a streamed piece; cost is linear in the piece (amortised)."""
        start = 0
        while True:
            end = text.find("\n", start)
            if end < 0:
                if start < len(text):
                    self._partial.append(text[start:])
                return
            piece = text[start:end + 1]
            if self._partial:
                self._partial.append(piece)
                piece = "".join(self._partial)
                self._partial = []
            self._line(piece)
            start = end + 1

    def _line(self, line: str) -> None:
        stripped = line.strip()
        if self._candidate is not None and stripped:
            if not line[0].isspace() and not (self._in_list and _LIST_ITEM.match(line)):
                self._cut(self._candidate)
            self._candidate = None
        self._lines.append(line)
        index = len(self._lines) - 1
        self._fence_of.append(self._fence_start if self._fence else -1)
        marker = _FENCE.match(line)
        if self._fence:
            if marker and marker.group(1)[0] == self._fence[0] and \
                    len(marker.group(1)) >= len(self._fence) and not line[marker.end():].strip():
                self._fence, self._fence_start = "", -1
        elif marker:
            self._fence, self._fence_start = marker.group(1), index
            self._fence_of[index] = index
        elif not stripped:
            self._candidate = index + 1
        elif not line[0].isspace():
            self._in_list = bool(_LIST_ITEM.match(line))

    def _cut(self, index: int) -> None:
        self._done.append("".join(self._lines[:index]))
        del self._lines[:index]
        del self._fence_of[:index]
        self._fence_of = [i - index if i >= 0 else -1 for i in self._fence_of]
        if self._fence_start >= 0:
            self._fence_start -= index
        self._candidate = None

    def take_done(self) -> list[str]:
        """The blocks finished since the last call, each handed out once."""
        done, self._done = self._done, []
        return done

    def take_all(self, close_fence: bool = False) -> str:
        """Everything not yet handed out (the turn ended); a code fence cut mid-way is
        closed when `close_fence`, so it still shows as code."""
        text = "".join(self._done) + "".join(self._lines) + "".join(self._partial)
        if close_fence and self._fence:
            text += ("" if text.endswith("\n") else "\n") + self._fence + "\n"
        self._reset()
        return text

    def has_open(self) -> bool:
        return bool(self._lines) or any(p.strip() for p in self._partial)

    def tail(self, rows: int, width: int) -> tuple[str, bool]:
        """The open block's last `rows` lines (each at most a screenful wide), with its
        code fence's opening line when that is above the window; and whether lines
        were left out above."""
        budget = max(1, rows) * max(20, width)
        partial = "".join(self._partial)
        picked: list[str] = [partial[-budget:]] if partial else []
        cut = len(partial) > budget
        used = len(picked[0]) if picked else 0
        index = len(self._lines)
        while index > 0 and len(picked) < rows and used < budget:
            index -= 1
            line = self._lines[index]
            if len(line) > budget:
                line, cut = line[-budget:], True
            picked.append(line)
            used += len(line)
        picked.reverse()
        if index < len(self._lines):
            opening = self._fence_of[index]
            if opening >= 0 and opening != index:
                picked.insert(0, self._lines[opening])
        return "".join(picked), cut or index > 0


    def open_code(self, rows: int, width: int) -> tuple[str, str, bool] | None:
        """While a code fence is open: (markdown above it in the window, the fence's last
        code lines, whether lines were left out above), or None outside a fence. The
        code is shown plain while it streams (highlighting it costs a millisecond a
        line) and highlighted once, when the block is printed."""
        if not self._fence:
            return None
        budget = max(1, rows) * max(20, width)
        start = self._fence_start + 1
        code = self._lines[max(start, len(self._lines) - rows):]
        code = [line[:width] for line in code]
        partial = "".join(self._partial)[:budget]
        room = rows - len(code) - 1
        above = self._lines[max(0, self._fence_start - room):self._fence_start] if room > 0 else []
        cut = len(self._lines) - len(code) - len(above) - 1 > 0
        return "".join(above), "".join(code) + partial, cut


class Trimmed:
    """A renderable without its leading and trailing blank lines (rich gives a block
    rendered alone a margin it would not have inside the whole answer)."""

    def __init__(self, renderable) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        while lines and _blank(lines[0]):
            lines.pop(0)
        while lines and _blank(lines[-1]):
            lines.pop()
        for line in lines:
            yield from line
            yield Segment.line()


class Tail:
    """A renderable cut to its last lines that fit the screen (the live region must
    never be taller than the terminal: the newest text stays in view). Rendered once
    per width: the live region's own refreshes then cost nothing more."""

    def __init__(self, renderable, cut_above: bool = False) -> None:
        self.renderable = renderable
        self.cut_above = cut_above
        self._cache: tuple[tuple[int, int], list[Any]] | None = None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key = (options.max_width, options.size.height)
        if self._cache is None or self._cache[0] != key:
            self._cache = (key, self._lines(console, options))
        for line in self._cache[1]:
            yield from line
            yield Segment.line()

    def _lines(self, console: Console, options: ConsoleOptions) -> list[Any]:
        lines = console.render_lines(self.renderable, options, pad=False)
        room = max(2, options.size.height - LIVE_SPARE_ROWS)
        if len(lines) > room or self.cut_above:
            lines = lines[-(room - 1):]
            note = Text("… earlier lines above (shown in full when the block ends)",
                        style="dim")
            lines.insert(0, console.render_lines(note, options, pad=False)[0])
        return lines


def _blank(line: list[Segment]) -> bool:
    """A line with no text and no background (a margin, not a code block's padding)."""
    return all(not seg.text.strip() and (seg.style is None or seg.style.bgcolor is None)
               for seg in line)


def code_preview(above: str, code: str):
    """An open code block as it streams: the markdown above it, then its lines plain on
    the code background (cheap to draw ten times a second)."""
    from rich.console import Group
    from rich.padding import Padding

    block = Padding(Text(code.rstrip("\n"), no_wrap=True, overflow="crop"), (0, 1),
                    style=CODE_STYLE, expand=True)
    return Group(markdown(above), block) if above.strip() else block


def split_markdown(text: str) -> tuple[str, str]:
    """(finished blocks, open tail) of `text`, as the streaming renderer splits it."""
    splitter = BlockSplitter()
    splitter.feed(text)
    done = "".join(splitter.take_done())
    return done, text[len(done):]


def markdown(text: str):
    """rich Markdown with every heading left-aligned (rich centres h1) and link targets
    written out (many terminals cannot show OSC 8 links)."""
    return _left_markdown()(text, hyperlinks=False)


@functools.cache
def _left_markdown():
    from rich.markdown import Heading, Markdown  # slow to import: on first use

    class LeftHeading(Heading):
        LEVEL_ALIGN = dict.fromkeys(Heading.LEVEL_ALIGN, "left")

    class LeftMarkdown(Markdown):
        elements = {**Markdown.elements, "heading_open": LeftHeading}

    return LeftMarkdown
