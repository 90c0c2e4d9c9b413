"""The gateway judges a turn like one-shot does (issue 11, bug 2; see
tests/e2e/test_turn_judgement.py): an automatic compression that fails after the turn
answered leaves a 200 with the answer."""

from __future__ import annotations

from tests.fakes import Error, Reply
from tests.helpers import GATEWAY_MODEL, ask

LONG = "please look at this part of the parser: " + "tokens and more tokens " * 40


def test_gateway_answers_the_same_turn_with_200(harness):
    fake = harness.fake
    # the agent's own calls carry tools; the summary calls do not: refuse those
    fake.responder = lambda record: (Reply(text="an answer") if "tools" in record.body
                                     else Error(400, "summaries refused"))
    harness.config.update({"context_windows": {GATEWAY_MODEL: 1500},
                           "compression": {"threshold": 0.05}})
    client = harness.client(harness.start())
    replies = [ask(client, "s", f"{n}: {LONG}") for n in range(4)]  # raises on a non-200
    assert [r.choices[0].message.content for r in replies] == ["an answer"] * 4
    summaries = [r for r in fake.requests if "tools" not in r.body]
    assert summaries and all(r.status == 400 for r in summaries)  # compression did fail
