"""Usage is an open set of priced meters: a charge no token bucket names - a
provider's web searches, say - is priced where the call is recorded and reaches the
call's cost, the store, /usage (one line per meter), `sessions usage --json` and
`-q --json` (beside the documented fields) with no code of its own outside the provider.
Fast tier: a real agent on the scripted model, whose answers carry the meter."""

from __future__ import annotations

import io
import math

from rich.console import Console

from agent.usage import Meter, Usage
from frontend.outcome import TurnOutcome
from frontend.usage_report import build_report
from hermes_cli.oneshot_output import usage_object
from hermes_cli.render.usage import totals_table
from tests.fakes.scripted import Answer, ScriptedModel
from tests.helpers import MODEL, scripted_agent

SEARCH = Meter("web_search", 2, "search", 0.01)  # a kind of charge nobody else knows


def _answer(text: str) -> Answer:
    return Answer(text, usage=Usage(uncached=1000, output=10, meters=(SEARCH,)))


def test_a_new_kind_of_charge_is_priced_stored_and_shown_with_no_code_of_its_own(
        hermes_home, tmp_path):
    from agent.cost import pricing

    agent = scripted_agent(ScriptedModel(_answer("one"), _answer("two")), hermes_home, tmp_path)
    outcome = TurnOutcome()
    for text in ("search for a", "search for b"):
        for event in agent.run_turn(text):
            outcome.feed(event)
    tokens = pricing.cost(Usage(uncached=1000, output=10), MODEL)
    assert tokens is not None
    assert math.isclose(outcome.cost, 2 * (tokens + 0.02))  # each call: tokens + 2 searches

    report = build_report(agent.store, agent.session_id)
    assert math.isclose(report.session.cost or 0.0, 2 * (tokens + 0.02))
    (searches,) = report.session.meters
    assert (searches["name"], searches["quantity"], searches["unit"]) == ("web_search", 4, "search")
    assert math.isclose(searches["cost_usd"], 0.04)
    assert report.as_dict()["session"]["meters"][0]["quantity"] == 4  # sessions usage --json

    out = io.StringIO()
    Console(file=out, width=160).print(totals_table(report))
    assert "web search" in out.getvalue() and "$0.04" in out.getvalue()

    data = usage_object(outcome, report)  # -q --json
    assert data["meters"][0]["quantity"] == 4 and "cost_usd" in data and "hit_rate" in data
    agent.close()
