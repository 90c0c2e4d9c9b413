"""Streamed markdown: linear work, cancellation order, headings (string console, no pty)."""

from __future__ import annotations

import io

from rich.console import Console

from agent.events import Done, TextDelta
from hermes_cli.render.renderer import TEXT_INTERVAL, Renderer
from hermes_cli.render.stream import BlockSplitter, markdown


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _terminal(height: int = 30) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=80, height=height, color_system=None)
    return console, out


def _stream(renderer: Renderer, clock: Clock, text: str, step: int, tick: float) -> None:
    for index in range(0, len(text), step):
        clock.now += tick
        renderer.handle(TextDelta(text[index:index + step]))


def test_work_per_chunk_is_bounded_by_the_screen_not_the_reply():
    """Every chunk triggers a render (the clock jumps past the throttle each time): each
    character is still committed once and each live update stays one screenful, so the
    work grows linearly with the reply. A renderer that re-renders the open block per
    chunk fails the live bound at once (the block is 800 lines long)."""
    code = "".join(f"    value_{i} = compute({i})\n" for i in range(800))
    prose = "".join(f"Paragraph {i} says something.\n\n" for i in range(200))
    text = "Intro line.\n\n```python\n" + code + "```\n\n" + prose + "The end.\n"
    console, _ = _terminal(height=12)
    clock = Clock()
    renderer = Renderer(console, clock=clock)
    renderer.start_turn()
    _stream(renderer, clock, text, step=25, tick=TEXT_INTERVAL)
    renderer.end_turn()
    work = renderer.work
    assert work.committed_chars == len(text)  # each character printed for good once
    assert work.live_updates > len(text) // 25 // 2  # the open tail shown on every chunk
    assert work.live_chars_max <= 12 * 80  # ... and each time at most a screenful
    assert work.live_chars_total <= work.live_updates * 12 * 80


def test_throttling_renders_a_fast_stream_a_few_times_a_second():
    text = "".join(f"line {i} of a paragraph\n" for i in range(3000))
    console, _ = _terminal()
    clock = Clock()
    renderer = Renderer(console, clock=clock)
    renderer.start_turn()
    _stream(renderer, clock, text, step=4, tick=0.001)  # 18,000 chunks in 18 s
    renderer.end_turn()
    seconds = len(range(0, len(text), 4)) * 0.001
    assert renderer.work.live_updates <= seconds / TEXT_INTERVAL + 2


def test_the_splitter_hands_out_each_block_once():
    splitter = BlockSplitter()
    for piece in ("para one\n", "\npara", " two\n\n```\na\n\nb\n", "```\n\nlast line\nmore"):
        splitter.feed(piece)
    assert splitter.take_done() == ["para one\n\n", "para two\n\n", "```\na\n\nb\n```\n\n"]
    assert splitter.take_done() == []
    assert splitter.take_all() == "last line\nmore"


def test_a_code_block_cut_by_ctrl_c_stays_code_and_cancelled_comes_last():
    out = io.StringIO()  # what stays on the screen: no live region, blocks as on a terminal
    console = Console(file=out, width=80, color_system=None)
    clock = Clock()
    renderer = Renderer(console, clock=clock)
    renderer.live_ok = True
    renderer.start_turn()
    _stream(renderer, clock, "Look:\n\n```python\nfirst = 1\nsecond = 2\n", step=5, tick=0.01)
    renderer.cancelled()  # Ctrl-C
    renderer.handle(TextDelta("third = 3\n```\n\nMore prose after the cut.\n"))
    renderer.handle(Done("", "cancelled"))
    renderer.end_turn()
    lines = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
    final = lines[lines.index("Look:"):]
    assert final[-1] == "cancelled" and final.count("cancelled") == 1
    assert "first = 1" in final and "second = 2" in final  # two code lines, not one paragraph
    assert not any("third" in line or "More prose" in line for line in final)
    assert not any("```" in line for line in final)


def test_headings_are_left_aligned():
    console, out = _terminal()
    console.print(markdown("# Title\n\n## Sub\n"))
    lines = [line for line in out.getvalue().splitlines() if "Title" in line or "Sub" in line]
    assert lines and all(line.lstrip("┃━┏┓┗┛ ").startswith(("Title", "Sub")) for line in lines)
    assert all(line.index("Title" if "Title" in line else "Sub") < 5 for line in lines)


def test_text_held_back_by_throttling_shows_once_the_stream_is_quiet():
    console, _ = _terminal()
    clock = Clock()
    renderer = Renderer(console, clock=clock)
    renderer.start_turn()
    renderer.handle(TextDelta("first paragraph\n\n"))
    renderer.handle(TextDelta("second paragraph\n\nthird"))  # within the interval: held back
    committed = renderer.work.committed_chars
    renderer.tick()
    assert renderer.work.committed_chars == committed  # still within the interval
    clock.now += TEXT_INTERVAL
    renderer.tick()  # the runner's idle poll
    assert renderer.work.committed_chars > committed
    renderer.end_turn()


def test_while_the_spinner_runs_stdout_and_stderr_stay_the_real_streams():
    """A command's child is forked from the turn's thread while the spinner's refresh
    thread holds the Live lock; rich's redirection made sys.stderr a proxy behind that
    lock, so a child writing one line before its exec waited for ever (the REPL hung on
    a Ctrl-C'd `sleep 20`). The streams must stay the interpreter's own."""
    import sys

    from rich.file_proxy import FileProxy

    console, _out = _terminal()
    renderer = Renderer(console, clock=Clock())
    renderer.live_ok = True
    renderer.start_turn()
    try:
        renderer._start_live()
        assert renderer._live is not None and renderer._live.is_started
        assert not isinstance(sys.stdout, FileProxy) and not isinstance(sys.stderr, FileProxy)
    finally:
        renderer.end_turn()
