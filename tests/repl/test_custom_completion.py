"""Tab completes custom commands after the built-ins, with their description (no pty)."""

from __future__ import annotations

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from hermes_cli.repl.completion import SlashCompleter


def test_custom_commands_complete_after_the_built_ins():
    completer = SlashCompleter({"commands": lambda: [("review", "Review a file"), ("mo-tests", "")]})
    found = list(completer.get_completions(Document("/mo", 3), CompleteEvent()))
    assert [c.text for c in found] == ["/model", "/mo-tests"]
    (review,) = completer.get_completions(Document("/rev", 4), CompleteEvent())
    assert review.text == "/review" and review.display_meta_text == "Review a file"
    assert list(SlashCompleter({}).get_completions(Document("/rev", 4), CompleteEvent())) == []
