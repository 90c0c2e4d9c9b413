"""Thinking through the real agent on the in-process scripted model (fast tier): the
blocks are stored with the message and come back from the store unchanged, every
continuation passes the API's thinking rules, /reasoning changes the next request only,
and the grace call keeps room above the budget."""

from __future__ import annotations

from dataclasses import replace

from agent.agent import AIAgent
from agent.diagnosis import fingerprint, first_difference
from agent.events import ThinkingDelta
from agent.messages import Reasoning
from agent.sessions.conversation import Conversation
from frontend.commands import Handle, reasoning
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent

BUDGET = Reasoning("budget", 2048)


def todo_calls(n: int) -> list[Reply]:
    return [Reply(tool_calls=[ToolCall("todo", {"todos": []}, id=f"t{i}")],
                  thinking=f"plan step {i} \u00e9\U0001f600", redacted=(i == 1)) for i in range(n)]


def test_blocks_are_stored_and_reloaded_unchanged(hermes_home, tmp_path):
    model = ScriptedModel(*todo_calls(3), Reply(text="done"))
    agent = scripted_agent(model, hermes_home, tmp_path, reasoning=BUDGET)
    events = run(agent, "plan")
    assert not model.rejected and all(c.status == 200 for c in model.calls)
    assert "plan step 0" in "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    live = [m.reasoning for m in agent.conversation.messages if m.role == "assistant"]
    assert all(live) and len(live) == 4
    reloaded = Conversation(agent.store, agent.session_id)
    reloaded.load()
    assert [m.reasoning for m in reloaded.messages if m.role == "assistant"] == live
    resumed = AIAgent(agent.config, agent.store, session_id=agent.session_id, provider=model)
    model.script(*todo_calls(1), Reply(text="again"))
    run(resumed, "once more")
    assert not model.rejected
    old = model.bodies[-3]["messages"]
    assert model.bodies[-1]["messages"][1]["content"][0] == old[1]["content"][0]


def test_a_continuation_without_its_thinking_is_refused(hermes_home, tmp_path):
    model = ScriptedModel(*todo_calls(1), Reply(text="done"))
    agent = scripted_agent(model, hermes_home, tmp_path, reasoning=BUDGET)
    run(agent, "plan")
    history = agent.conversation.messages
    stripped = [replace(m, reasoning=()) if m.role == "assistant" else m for m in history[:3]]
    request = replace(model.requests[-1], messages=stripped)
    try:
        list(model.stream(request, agent.caller.cancel))
    except Exception as exc:  # noqa: BLE001 - the scripted model raises the API's 400
        assert "Expected `thinking` or `redacted_thinking`" in str(exc)
    else:
        raise AssertionError("a continuation without thinking was accepted")


def test_reasoning_command_applies_to_the_next_request_only(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path)
    run(agent, "one")
    reply = reasoning(Handle(agent), "adaptive effort=max")
    assert reply.changed == "reasoning" and "tools and system stay cached" in reply.text
    assert "thinking" not in model.bodies[-1]
    run(agent, "two")
    assert model.bodies[-1]["thinking"] == {"type": "adaptive"}
    assert model.bodies[-1]["output_config"] == {"effort": "max"}
    before, after = model.requests[-2:]
    assert first_difference(fingerprint(before), fingerprint(after))[0] == "thinking_changed"
    assert reasoning(Handle(agent), "").text.startswith("Reasoning: adaptive thinking, effort max")
    assert reasoning(Handle(agent), "adaptive effort=max").text.startswith("Reasoning is already")
    refused = reasoning(Handle(agent), "effort=minimal")
    assert refused.level == "error" and "not one of anthropic's" in refused.text


def test_grace_call_at_the_iteration_limit_with_thinking(hermes_home, tmp_path):
    model = ScriptedModel(*todo_calls(3))
    agent = scripted_agent(model, hermes_home, tmp_path, reasoning=Reasoning("budget", 9000),
                           max_iterations=2)
    events = list(agent.run_turn("loop"))
    assert events[-1].reason == "max_iterations" and not model.rejected
    grace = model.bodies[-1]
    assert grace["max_tokens"] > 9000 and "tool_choice" not in grace


def test_switching_to_a_model_without_the_mode_says_so(hermes_home, tmp_path):
    from frontend.commands import model as switch

    agent = scripted_agent(ScriptedModel(), hermes_home, tmp_path,
                           reasoning=Reasoning("adaptive", 0, "high"))
    reply = switch(Handle(agent), "claude-haiku-4-5")
    assert "claude-haiku-4-5 cannot take adaptive thinking, effort high: it gets thinking off, " \
        "effort high" in reply.text
    assert "cannot take" not in switch(Handle(agent), "claude-opus-5").text
