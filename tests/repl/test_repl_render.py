"""The renderer and the completer, on a string console (no pty needed)."""

from __future__ import annotations

import io

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from rich.console import Console
from rich.markdown import Markdown

from agent.events import Done, ErrorEvent, Notice, TextDelta, ToolFinished, ToolStarted
from hermes_cli.render.renderer import Renderer, compact_args, tool_line
from hermes_cli.render.stream import Tail as _Tail
from hermes_cli.render.stream import split_markdown
from hermes_cli.repl.completion import SlashCompleter


def _console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=80, color_system=None), out


def test_plain_output_streams_text_and_lines_without_ansi():
    console, out = _console(terminal=False)
    renderer = Renderer(console)
    renderer.start_turn()
    for event in (TextDelta("Hello, "), TextDelta("**world**"),
                  ToolStarted("c1", "read_file", '{"path": "a.txt"}'),
                  ToolFinished("c1", "read_file", True, 0.0213),
                  Notice("a notice"), ErrorEvent("it broke", "try again"),
                  Done("", "cancelled")):
        renderer.handle(event)
    renderer.end_turn()
    text = out.getvalue()
    assert "\x1b" not in text
    assert text.splitlines() == [
        "Hello, **world**",
        '⚙ read_file {"path":"a.txt"} 0.02s ok',
        "a notice",
        "error: it broke",
        "  hint: try again",
        "cancelled",
    ]


def test_terminal_output_renders_markdown_blocks():
    console, out = _console(terminal=True)
    renderer = Renderer(console)
    renderer.start_turn()
    for piece in ("# Head", "line\n\nsome **bold** text\n\n", "```py\nx = 1\n\n", "y = 2\n```\n"):
        renderer.handle(TextDelta(piece))
    renderer.end_turn()
    text = out.getvalue()
    assert "Head" in text and "some bold text" in text and "**" not in text
    assert "x = 1" in text and "y = 2" in text and "```" not in text


def test_split_markdown_keeps_code_fences_whole():
    assert split_markdown("a\n\nb\n") == ("a\n\n", "b\n")
    assert split_markdown("a\n\nb") == ("", "a\n\nb")  # the next line is still arriving
    assert split_markdown("```\na\n\nb\n") == ("", "```\na\n\nb\n")
    assert split_markdown("p\n\n```\na\n\nb\n") == ("p\n\n", "```\na\n\nb\n")
    assert split_markdown("no break yet") == ("", "no break yet")


def test_split_markdown_keeps_loose_lists_and_continuations_whole():
    loose = "1. one\n\n2. two\n\n- a\n\n  more of a\n\n- b\n"
    assert split_markdown(loose) == ("", loose)
    assert split_markdown(loose + "\nafter the list\n") == (loose + "\n", "after the list\n")
    assert split_markdown("para\n\n    indented code\n") == ("", "para\n\n    indented code\n")


def _streamed(text: str, step: int = 3, height: int = 40) -> str:
    """What a terminal keeps of a streamed answer (the live region is transient)."""
    console, out = _console(terminal=False)
    console.height = height
    renderer = Renderer(console)
    renderer.live_ok = True  # markdown blocks as on a terminal, without the live region
    renderer.start_turn()
    for index in range(0, len(text), step):
        renderer.handle(TextDelta(text[index:index + step]))
    renderer.end_turn()
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines())


def _whole(text: str) -> str:
    console, out = _console(terminal=False)
    console.print(Markdown(text, hyperlinks=False))
    return "\n".join(line.rstrip() for line in out.getvalue().splitlines()).strip("\n")


def test_a_streamed_loose_list_renders_like_the_whole_answer():
    text = "Intro.\n\n1. first\n\n2. second\n\n- a\n\n  more of a\n\n- b\n\nThe end.\n"
    assert _streamed(text) == _whole(text)
    assert "   more of a" in _streamed(text)  # the item's paragraph stays indented


def test_links_show_their_target():
    assert "see docs (https://example.com/x)" in _streamed("see [docs](https://example.com/x)\n")


def test_the_live_tail_keeps_the_newest_lines_in_view():
    console, _ = _console(terminal=False)
    console.height = 12
    code = "```\n" + "".join(f"row {i}\n" for i in range(50))
    with console.capture() as capture:
        console.print(_Tail(Markdown(code)))
    lines = capture.get().splitlines()
    assert len(lines) <= 12 - 3
    assert "earlier lines above" in lines[0]
    shown = [line.strip() for line in lines if line.strip()]
    assert shown[-1] == "row 49" and "row 0" not in shown


def test_tool_line_and_compact_args():
    assert compact_args('{"b": 1, "a": [1, 2]}') == '{"b":1,"a":[1,2]}'
    assert compact_args("not json") == "not json"
    assert tool_line("terminal", '{"command": "ls"}', 1.5, False).plain == (
        '⚙ terminal {"command":"ls"} 1.50s failed')
    declined = tool_line("terminal", "{}", 2.0, False, "Error: the user\ndeclined " + "x" * 200)
    assert declined.plain.startswith('⚙ terminal {} 2.00s failed: Error: the user declined x')
    assert declined.plain.endswith("…") and len(declined.plain) < 120
    assert tool_line("read_file", "{}", 0.1, True, "file contents").plain.endswith("0.10s ok")


def _complete(completer: SlashCompleter, text: str) -> list[str]:
    document = Document(text, len(text))
    return [c.text for c in completer.get_completions(document, CompleteEvent())]


def test_completer_uses_the_command_table_and_sources():
    completer = SlashCompleter({
        "model": lambda: [("claude-opus-5", ""), ("claude-sonnet-5-5", "current")],
        "session": lambda: [("20261129-120000-abcdef", "a title")],
    })
    assert _complete(completer, "/mo") == ["/model"]
    assert "/memory" in _complete(completer, "/m")
    assert _complete(completer, "/model claude-o") == ["claude-opus-5"]
    assert _complete(completer, "/resume 2026") == ["20261129-120000-abcdef"]
    assert _complete(completer, "/personality x") == []  # no source given: nothing
    assert _complete(completer, "hello /mo") == []
    assert _complete(completer, "/model a b") == []
