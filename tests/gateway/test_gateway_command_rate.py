"""Built-in commands count against a key's request rate: thirty `/new` over the HTTP
API with `requests_per_minute: 5` get five answers and twenty-five 429s, and store no
more sessions than the five allowed; the other key is not held up."""

from __future__ import annotations

import sqlite3

import openai
import pytest

from tests.helpers import KEY_B, ask

pytestmark = pytest.mark.wire


def _sessions(home) -> int:
    with sqlite3.connect(home / "state.db") as db:
        return db.execute("SELECT count(*) FROM sessions").fetchone()[0]


def test_thirty_new_commands_are_held_to_the_rate(harness):
    server = harness.start(rate_limit={"requests_per_minute": 5})
    client = harness.client(server)
    before = _sessions(harness.home)
    answered, refused = 0, 0
    for _ in range(30):
        try:
            ask(client, "flood", "/new")
            answered += 1
        except openai.RateLimitError as exc:
            refused += 1
            assert "5 requests per minute" in str(exc)
    assert (answered, refused) == (5, 25)
    assert _sessions(harness.home) - before <= 1 + 5  # the route's first session, one per allowed /new
    assert ask(harness.client(server, KEY_B), "other", "/new").choices[0].message.content
    assert harness.fake.requests == []
