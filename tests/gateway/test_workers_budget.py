"""A key's daily spend limit holds across gateway workers: it is summed from the usage
rows in the shared database, not counted in a process (two servers over one
HERMES_HOME stand for two workers; gateway/spend.py)."""

from __future__ import annotations

import openai
import pytest

from tests.helpers import KEY_B, ask, gateway_of


def test_a_key_that_spent_on_one_worker_is_refused_on_another(harness, database_url):
    harness.config["database_url"] = database_url
    one = harness.start(daily_usd_per_key=0.000001)  # the first call spends more
    two = harness.start(daily_usd_per_key=0.000001)
    assert gateway_of(one).store is not gateway_of(two).store  # nothing shared in memory
    ask(harness.client(one), "spend", "spend on worker one")
    calls = len(harness.fake.requests)
    with pytest.raises(openai.RateLimitError) as refused:
        ask(harness.client(two), "other", "then ask worker two")
    assert refused.value.response.json()["error"]["code"] == "daily_budget_exceeded"
    assert len(harness.fake.requests) == calls  # refused before any model call
    ask(harness.client(two, KEY_B), "b", "another key still spends")  # per key
    with pytest.raises(openai.RateLimitError):
        ask(harness.client(one, KEY_B), "b", "and is then refused on worker one")
