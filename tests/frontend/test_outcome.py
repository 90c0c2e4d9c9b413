"""frontend.outcome: every front end judges a turn the same way (fast tier)."""

from __future__ import annotations

from agent.events import Done, ErrorEvent, Notice, TextDelta, UsageEvent
from agent.usage import Usage
from frontend.outcome import TurnOutcome

FAILED_COMPRESSION = ErrorEvent("Compression failed: the provider refused",
                                "Nothing was changed: same session, same history.")


def _fold(*events) -> TurnOutcome:
    outcome = TurnOutcome()
    for event in events:
        outcome.feed(event)
    return outcome


def test_an_error_the_turn_recovered_from_is_a_warning_not_a_failure():
    outcome = _fold(UsageEvent(Usage(uncached=10, output=5, calls=1), "m", 0.01, None, None),
                    TextDelta("4"), FAILED_COMPRESSION, Notice("x"), Done("4", "answer"))
    assert outcome.error is None and not outcome.failed
    assert outcome.warnings == [FAILED_COMPRESSION]
    assert outcome.answer == "4" and outcome.usage.calls == 1 and outcome.total_cost == 0.01


def test_a_turn_that_ends_in_error_fails_with_its_last_error():
    last = ErrorEvent("HTTP 400: bad request")
    outcome = _fold(FAILED_COMPRESSION, last, Done("", "error"))
    assert outcome.failed and outcome.error is last
    assert outcome.warnings == [FAILED_COMPRESSION]


def test_an_error_without_a_message_still_fails_clearly():
    outcome = _fold(Done("", "error"))
    assert outcome.error is not None and "without a message" in outcome.error.message


def test_cancelled_and_max_iterations_are_not_failures():
    assert _fold(Done("", "cancelled")).error is None
    assert _fold(Done("summary", "max_iterations")).error is None


def test_an_unpriced_call_makes_the_cost_unknown():
    outcome = _fold(UsageEvent(Usage(calls=1), "m", 0.5, None, None),
                    UsageEvent(Usage(calls=1), "other", None, None, None), Done("a", "answer"))
    assert outcome.total_cost is None
