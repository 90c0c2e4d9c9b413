"""One folding of a turn's events into its result, for every front end.

`TextFold` is the one folding of the visible text: the streamed deltas, with a blank
line between the text before a tool call and the text after it.

A turn fails only when it ENDS in error (`Done.reason == "error"`). An ErrorEvent
before a Done that answered (an automatic compression that failed, after which the turn
went on and answered) is a warning of that turn, not its failure: the REPL, one-shot
and the gateway all judge a turn the same way through this class.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.events import Done, ErrorEvent, TextDelta, ThinkingDelta, ToolStarted, UsageEvent
from agent.usage import ZERO, Usage

NO_MESSAGE = "the turn failed without a message from the provider"


@dataclass
class TurnOutcome:
    """What one turn produced. Feed every event, then read the fields."""

    answer: str = ""
    reason: str = ""  # Done.reason: answer, max_iterations, cancelled, error ("" = no Done)
    usage: Usage = ZERO
    cost: float = 0.0
    cost_known: bool = True
    errors: list[ErrorEvent] = field(default_factory=list)
    thinking: str = ""  # the turn's streamed thinking (front ends show it only when asked)

    def feed(self, event: object) -> None:
        """Take one event (others than these are the front end's to render)."""
        if isinstance(event, UsageEvent):
            self.usage = self.usage + event.usage
            if event.cost_usd is None:
                self.cost_known = False
            else:
                self.cost += event.cost_usd
        elif isinstance(event, ErrorEvent):
            self.errors.append(event)
        elif isinstance(event, ThinkingDelta):
            self.thinking += event.text
        elif isinstance(event, Done):
            self.answer, self.reason = event.answer, event.reason

    @property
    def failed(self) -> bool:
        # "image": an attached image was refused before any request (gateway/sessions.py)
        return self.reason in ("error", "", "image")

    @property
    def error(self) -> ErrorEvent | None:
        """The error the turn ended with (None when it did not fail)."""
        if not self.failed:
            return None
        return self.errors[-1] if self.errors else ErrorEvent(NO_MESSAGE)

    @property
    def warnings(self) -> list[ErrorEvent]:
        """Errors the turn recovered from (all of them when it did not fail)."""
        return self.errors[:-1] if self.failed and self.errors else list(self.errors)

    @property
    def total_cost(self) -> float | None:
        """Dollars for the turn's calls; None when a call's price is unknown."""
        return self.cost if self.cost_known else None


@dataclass
class TextFold:
    """The text a person reads from a turn's events (see the module docstring)."""

    said: bool = False  # some text was given
    gap: bool = False  # a tool ran since the last text

    def feed(self, event: object) -> str:
        """The text `event` adds ("" for none)."""
        if isinstance(event, ToolStarted):
            self.gap = True
        if not isinstance(event, TextDelta) or not event.text:
            return ""
        text = ("\n\n" if self.gap and self.said else "") + event.text
        self.gap, self.said = False, True
        return text
