"""Budgets as the user sees them: one money format that never reads $0.00 for a real
limit, a first call that a small --max-usd does not turn into a grace call on a guess,
and a line when a budget stops a turn (fast tier, scripted model)."""

from __future__ import annotations

from agent.cost.budget import Limits
from agent.events import Done, Notice
from agent.usage import Usage, usd
from frontend.budget_text import budget_text, with_stop_line
from tests.fakes import ToolCall
from tests.fakes.scripted import Answer, ScriptedModel
from tests.helpers import scripted_agent


def test_money_reads_with_enough_digits():
    assert [usd(v) for v in (0, 5, 0.5, 0.004, 0.0123, 1234.5, 0.00002)] == [
        "$0.00", "$5.00", "$0.50", "$0.004", "$0.0123", "$1,234.50", "$0.00002"]
    status = {"session_usd": 0.004, "spent_usd": 0.001, "remaining_usd": 0.003}
    assert budget_text(status) == "spent $0.001 of $0.004 ($0.003 left)"


def test_a_small_usd_limit_lets_the_first_call_use_tools(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=("todo",),
                           budget=Limits(session_usd=0.05))
    prompt_usd = agent.caller.estimate().usd
    assert prompt_usd is not None
    # the prompt fits with $0.005 to spare; 1,000 guessed output tokens ($0.01) would not
    agent.budget.limits = Limits(session_usd=prompt_usd + 0.005)
    model.script(Answer(text="", tool_calls=[ToolCall("todo", {})],
                        usage=Usage(uncached=100, output=10)),
                 Answer(text="done", usage=Usage(uncached=100, output=10)))
    events = list(agent.run_turn("plan it"))
    assert events[-1] == Done("done", "answer")
    assert "exceeded" not in model.requests[0].messages[-1].content  # not a grace call
    agent.close()


def test_a_turn_a_budget_stopped_says_so(hermes_home, tmp_path):
    model = ScriptedModel(*(Answer(text="step", tool_calls=[ToolCall("todo", {})],
                                   usage=Usage(uncached=10_000, output=1_000))
                            for _ in range(5)))
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=("todo",),
                           budget=Limits(turn_tokens=20_000))
    events = list(with_stop_line(agent.run_turn("go"), agent.budget))
    assert events[-1].reason == "budget_turn_tokens"
    assert isinstance(events[-2], Notice) and events[-2].text.startswith(
        "stopped at the turn's token budget")
    agent.close()
