"""The renderer and the completer, on a string console (no pty needed)."""

from __future__ import annotations

import io

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from rich.console import Console

from agent.events import Done, ErrorEvent, Notice, TextDelta, ToolFinished, ToolStarted
from hermes_cli.completion import SlashCompleter
from hermes_cli.render import Renderer, compact_args, split_markdown, tool_line


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
    assert split_markdown("a\n\nb") == ("a\n\n", "b")
    assert split_markdown("```\na\n\nb") == ("", "```\na\n\nb")
    assert split_markdown("p\n\n```\na\n\nb") == ("p\n\n", "```\na\n\nb")
    assert split_markdown("no break yet") == ("", "no break yet")


def test_tool_line_and_compact_args():
    assert compact_args('{"b": 1, "a": [1, 2]}') == '{"b":1,"a":[1,2]}'
    assert compact_args("not json") == "not json"
    assert tool_line("terminal", '{"command": "ls"}', 1.5, False).plain == (
        '⚙ terminal {"command":"ls"} 1.50s failed')


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
