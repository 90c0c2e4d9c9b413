"""How a budget reads (fast tier)."""

from agent.cost.budget import Budget, Limits
from agent.usage import Usage
from frontend.budget_text import budget_text


def test_budget_text_long_and_short():
    budget = Budget(Limits(turn_tokens=200_000, session_usd=5.0))
    budget.charge(Usage(uncached=10_000, output=2_000, calls=1), 0.125)
    status = budget.status()
    assert budget_text(status) == ("spent $0.125 of $5.00 ($4.875 left); "
                                   "this turn 12,000 of 200,000 tokens")
    assert budget_text(status, short=True) == "$0.125/$5.00 turn 12,000/200,000 tok"
    budget.charge(Usage(calls=1), None)
    assert "not enforceable" in budget_text(budget.status())
    assert budget_text(Budget(Limits()).status()) == ""


def test_a_read_between_turns_is_spend_not_the_last_turn_s_tokens():
    budget = Budget(Limits(turn_tokens=200_000, session_usd=5.0))
    budget.charge(Usage(uncached=10_000, output=2_000, calls=1), 0.125)
    budget.charge(Usage(cache_read=9_000, output=1, calls=1), 0.003, turn=False)  # keep-warm
    assert budget.status()["turn_tokens_used"] == 12_000
    assert budget.status()["spent_usd"] == 0.128
