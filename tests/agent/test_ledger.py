"""One place records a billed call (agent/modelcall/ledger.py): a turn's call, a keep-warm read
and a sub-agent's call differ only in what they charge and how they are numbered."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.cost import pricing
from agent.cost.budget import Budget, Limits
from agent.modelcall.ledger import Billed, Ledger
from agent.sessions.call_state import CallState
from agent.usage import Usage
from memory import open_store

MODEL = "claude-sonnet-5"


def test_each_kind_of_billed_call_is_one_row_charged_as_it_should(tmp_path: Path) -> None:
    store = open_store(tmp_path / "home", None)
    store.create_session("s", model=MODEL, provider="anthropic", system_prompt="x")
    budget = Budget(Limits())
    ledger = Ledger(store, budget, None)
    calls = CallState()
    calls.turn = 3
    usage = Usage(uncached=100, write_5m=2000, cache_read=5000, output=50)
    price = pricing.cost(usage, MODEL)
    assert price is not None

    turn = ledger.record("s", "anthropic", calls, Billed(usage, MODEL, "msg_1", cause="cold"))
    assert (turn.cost_usd, turn.miss_cause, budget.turn_tokens) == (price, "cold", 7150)
    ledger.record("s", "anthropic", calls, Billed(usage, MODEL, kind="keep_warm"), spend="between")
    assert budget.turn_tokens == 7150 and budget.spent_usd == pytest.approx(2 * price)
    ledger.record("s", "anthropic", calls, Billed(usage, MODEL, detail="sub-agent: ok"),
                  spend="counted", cost=0.5, numbered=False)
    assert budget.spent_usd == pytest.approx(2 * price) and calls.call_index == 2

    rows = store.usage_rows("s")
    assert [(r["turn"], r["call_index"], r["kind"], r["response_id"]) for r in rows] == [
        (3, 1, "", "msg_1"), (3, 2, "keep_warm", None), (3, 0, "", None)]
    assert [r["cost_usd"] for r in rows] == [pytest.approx(price), pytest.approx(price), 0.5]
    assert rows[2]["miss_detail"] == "sub-agent: ok"
    store.close()
