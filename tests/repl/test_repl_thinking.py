"""Thinking in the REPL: /reasoning changes it with its cost said; streamed thinking
collapses to one dimmed line and /expand shows it (pty + the fake API), and the
renderer's folding on a string console (fast tier)."""

from __future__ import annotations

import io

from rich.console import Console

from agent.events import Done, TextDelta, ThinkingDelta, ToolFinished, ToolStarted
from hermes_cli.render.renderer import Renderer
from tests.fakes import Reply


def _renderer() -> tuple[Renderer, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False, _environ={}, color_system=None)
    return Renderer(console), out


def test_thinking_is_one_collapsed_line_before_the_answer():
    renderer, out = _renderer()
    renderer.start_turn()
    for piece in ("Let me ", "consider ", "x" * 400):
        renderer.handle(ThinkingDelta(piece))
    assert "consider" not in out.getvalue()  # not printed while it streams
    renderer.handle(TextDelta("The answer."))
    renderer.handle(Done("The answer."))
    renderer.end_turn()
    lines = out.getvalue().splitlines()
    assert lines[0] == "thinking… (~104 tokens, /expand to show)"
    assert "The answer." in lines[1] and "consider" not in out.getvalue()
    assert renderer.thinking.last.startswith("Let me consider") and renderer.thinking.shown_last
    renderer.handle(ToolStarted("t", "todo", "{}"))
    renderer.handle(ToolFinished("t", "todo", True, 0.1, "ok", "ok"))
    assert not renderer.thinking.shown_last  # /expand now means the tool again


def test_reasoning_command_then_thinking_collapsed_and_expanded(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="hello back"),
                         Reply(text="thought through", thinking="Weighing the options " * 8))
    repl = spawn_repl()
    repl.send("hi " * 300)
    repl.expect("hello back")
    repl.prompt()
    repl.send("/reasoning 2048 effort=high")
    repl.expect("thinking off -> thinking up to 2,048 tokens, effort high. Changing reasoning "
                "settings invalidates the cached")  # the cost line follows (wrapped)
    repl.prompt()
    repl.send("think")
    repl.expect("/expand to show")
    repl.expect("thought through")
    repl.prompt()
    body = fake_provider.last.body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert 0 < fake_provider.last.cache_read < fake_provider.last.prompt_tokens
    repl.send("/expand")
    repl.expect("Weighing the options Weighing")
    repl.prompt()
    repl.send("/usage")
    repl.expect("thinking_changed")
    repl.prompt()
