"""Extended thinking in the REPL: streamed into the spinner's label, then collapsed to
one dimmed line ("thinking… (~N tokens, /expand to show)"); `/expand` prints it whole.
Thinking is never part of the answer and never printed in full unasked."""

from __future__ import annotations

from rich.text import Text

from agent.tokens import estimate_tokens


class ThinkingView:
    """The thinking of the block being streamed, and the last one collapsed."""

    def __init__(self) -> None:
        self.text = ""
        self.last = ""  # the last collapsed thinking (for /expand)
        self.shown_last = False  # the last collapsed thing on screen was thinking

    @property
    def open(self) -> bool:
        return bool(self.text)

    def add(self, text: str) -> str:
        """Take a delta; returns the spinner label."""
        self.text += text
        return f"thinking… (~{estimate_tokens(self.text):,} tokens)"

    def close(self) -> Text | None:
        """The collapsed line for the thinking streamed so far (None if there was none)."""
        if not self.text:
            return None
        self.last, self.text, self.shown_last = self.text, "", True
        return Text(f"thinking… (~{estimate_tokens(self.last):,} tokens, /expand to show)",
                    style="dim italic")

    def expanded(self) -> Text:
        return Text(self.last, style="dim")
