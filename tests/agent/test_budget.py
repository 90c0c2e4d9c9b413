"""Budgets: a turn or a session stops at the limit the user set, with a last
useful reply (fast tier: the scripted model, exact usage, claude-sonnet-5 prices:
$2/M input, $10/M output)."""

from __future__ import annotations

from agent.agent import AIAgent
from agent.cost.budget import BUDGET_PROMPT, WHAT, Limits
from agent.events import Done, ErrorEvent
from agent.sessions.conversation import repaired
from agent.usage import Usage
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import Answer, ScriptedModel
from tests.helpers import scripted_agent

# each call: 10,000 uncached input + 1,000 output = $0.02 + $0.01 = $0.03, 11,000 tokens
CALL = Usage(uncached=10_000, output=1_000, calls=1)


def _tool_answer(n: int) -> Answer:
    return Answer(text=f"step {n}", tool_calls=[ToolCall("todo", {})], usage=CALL)


def _final(text: str = "summary: did steps, left: the rest") -> Answer:
    return Answer(text=text, usage=CALL)


def _done(events) -> Done:
    assert isinstance(events[-1], Done), events
    return events[-1]


def test_a_token_budget_cuts_a_tool_loop_with_a_grace_reply(hermes_home, tmp_path):
    model = ScriptedModel(*(_tool_answer(n) for n in range(10)))
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=("todo",),
                           budget=Limits(turn_tokens=40_000))
    model.script()  # the grace call's reply comes from the script after the tool steps
    events = list(agent.run_turn("do the whole job"))
    done = _done(events)
    assert done.reason == "budget_turn_tokens"
    grace = model.requests[-1].messages[-1]
    assert grace.content == BUDGET_PROMPT.format(what=WHAT["turn_tokens"])
    # the grace call keeps the same tools (the cached prefix is read, not rewritten)
    assert model.requests[-1].tools == model.requests[0].tools
    # no orphan tool call: the history is valid as stored
    history = agent.conversation.messages
    assert repaired(history) == history and not history[-1].tool_calls
    assert len(model.requests) < 10  # it stopped well before the script ran out
    agent.close()


def test_a_usd_limit_across_turns_then_a_refusal_that_stores_nothing(hermes_home, tmp_path):
    model = ScriptedModel(_final("one"), _final("two"), _final("three"))
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=("todo",),
                           budget=Limits(session_usd=0.035))
    assert _done(list(agent.run_turn("first"))).reason == "answer"  # spent $0.03
    # $0.03 + the next call's estimate (its output alone: the session's average of 1,000
    # tokens = $0.01) crosses $0.035: that call is the grace call
    done = _done(list(agent.run_turn("second")))
    assert done.reason == "budget_session_usd" and done.answer == "two"
    assert model.requests[-1].messages[-1].content == BUDGET_PROMPT.format(
        what=WHAT["session_usd"])
    assert abs(agent.budget.spent_usd - 0.06) < 1e-9
    stored = len(agent.store.messages(agent.session_id))
    events = list(agent.run_turn("third"))
    assert _done(events).reason == "error"
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert "spend limit is reached" in error.message and "--max-usd" in error.hint
    assert len(agent.store.messages(agent.session_id)) == stored  # nothing sent or stored
    assert len(model.requests) == 2
    agent.close()


def test_resume_keeps_what_the_session_already_spent(hermes_home, tmp_path):
    model = ScriptedModel(_final("one"))
    first = scripted_agent(model, hermes_home, tmp_path, budget=Limits(session_usd=0.02))
    list(first.run_turn("first"))
    first.close()
    again = AIAgent(first.config, first.store, session_id=first.session_id, provider=model)
    assert abs(again.budget.spent_usd - 0.03) < 1e-9
    assert "spend limit is reached" in again.budget.refusal()
    again.close()


def test_an_unpriced_model_says_once_that_usd_limits_cannot_be_enforced(hermes_home, tmp_path):
    model = ScriptedModel(_final("ok"))
    agent = scripted_agent(model, hermes_home, tmp_path, model_name="mystery-model-9",
                           budget=Limits(session_usd=1.0, turn_tokens=100_000))
    warned = [n.text for n in agent.startup_notices if "cannot be enforced" in n.text]
    assert len(warned) == 1 and "Token limits still apply" in warned[0]
    assert _done(list(agent.run_turn("hi"))).reason == "answer"
    assert agent.budget.status()["usd_enforceable"] is False
    agent.close()


def test_no_limits_means_no_budget_checks(hermes_home, tmp_path):
    model = ScriptedModel(*(_tool_answer(n) for n in range(3)), _final())
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=("todo",))
    assert _done(list(agent.run_turn("go"))).reason == "answer"
    assert len(model.requests) == 4
    agent.close()


def test_sub_agents_draw_from_the_parent_budget(fake_provider, hermes_home, tmp_path):
    """Wire tier: sub-agents build their own provider (the fake server answers both).
    The child loops on tools until the parent's turn budget stops it with a grace call;
    every call of both is charged to the one budget."""
    from tests.helpers import make_agent

    agent = make_agent(fake_provider, hermes_home, tmp_path, toolsets=("todo", "delegate"),
                       budget=Limits(turn_tokens=30_000))

    def respond(rec):
        first = rec.body["messages"][0]["content"]
        child = "child goal" in str(first)
        last = str(rec.body["messages"][-1]["content"])
        if "[hermes] The token budget" in last:
            return Reply(text="child summary" if child else "parent summary")
        if child:
            return Reply(tool_calls=[ToolCall("todo", {})])
        return Reply(tool_calls=[ToolCall("delegate_task", {"goal": "child goal"})])

    fake_provider.responder = respond
    done = _done(list(agent.run_turn("delegate it")))
    assert done.reason == "budget_turn_tokens" and done.answer == "parent summary"
    cut = [r for r in fake_provider.requests if "child goal" in str(r.body["messages"][0])
           and "[hermes] The token budget" in str(r.body["messages"][-1]["content"])]
    # the child was stopped by the parent's budget (a second delegation, made while the
    # parent still had room for its own call and a grace call, starts with the grace call)
    assert 1 <= len(cut) <= 2
    billed = sum(r.prompt_tokens + r.usage["output_tokens"] for r in fake_provider.requests)
    assert agent.budget.turn_tokens == billed
    agent.close()


def test_a_turn_token_budget_ends_at_or_under_its_limit(hermes_home, tmp_path):
    """The budget keeps room for the grace call, and estimates a call at least as large
    as the last one the provider counted: 40,000 tokens at 11,000 a call stop at 33,000
    (two tool steps and the grace reply), not past the limit."""
    model = ScriptedModel(*(_tool_answer(n) for n in range(10)))
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=("todo",),
                           budget=Limits(turn_tokens=40_000))
    model.script()
    done = _done(list(agent.run_turn("do the whole job")))
    assert done.reason == "budget_turn_tokens"
    assert agent.budget.turn_tokens <= 40_000, agent.budget.turn_tokens
    assert len(model.requests) == 3
    agent.close()


def test_undo_shrinks_the_context_figure(hermes_home, tmp_path):
    model = ScriptedModel(_final("one"), _final("two"))
    agent = scripted_agent(model, hermes_home, tmp_path)
    list(agent.run_turn("first"))
    list(agent.run_turn("second"))
    assert agent.state.context_tokens() == 10_000  # the provider's count of the last prompt
    agent.undo()
    smaller = agent.state.context_tokens()
    assert smaller is not None and 0 < smaller < 10_000
    agent.close()
