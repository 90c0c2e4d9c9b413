"""The gateway judges a turn like one-shot does (see
tests/e2e/test_turn_judgement.py): an automatic compression that fails after the turn
answered leaves a 200 with the answer."""

from __future__ import annotations

from tests.fakes import Error, Reply
from tests.helpers import GATEWAY_MODEL, ask, is_summary_call

LONG = "please look at this part of the parser: " + "tokens and more tokens " * 340


def test_gateway_answers_the_same_turn_with_200(harness):
    fake = harness.fake
    # refuse the summary calls; answer the agent's own
    fake.responder = lambda record: (Error(400, "summaries refused")
                                     if is_summary_call(record.body) else Reply(text="an answer"))
    # ~2,000-token messages: from the fourth, compacting halves the prompt
    harness.config.update({"context_windows": {GATEWAY_MODEL: 12_000},
                           "compression": {"threshold": 0.6}})
    client = harness.client(harness.start())
    replies = [ask(client, "s", f"{n}: {LONG}") for n in range(4)]  # raises on a non-200
    assert [r.choices[0].message.content for r in replies] == ["an answer"] * 4
    summaries = [r for r in fake.requests if is_summary_call(r.body)]
    assert summaries and all(r.status == 400 for r in summaries)  # compression did fail
