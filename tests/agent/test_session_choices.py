"""A session's choices (agent/sessions/choices.py) are the session's, not the config's: a
/personality or /reasoning change made through the shared command path survives /new,
a resume and a sub-agent, because every later prompt and request reads them through the
session (fast tier, scripted model)."""

from __future__ import annotations

from agent.agent import AIAgent
from agent.messages import Reasoning
from frontend import commands as shared
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent

PERSONAS = {"pirate": "Talk like a pirate, always.", "poet": "Answer in verse."}
BUDGET = Reasoning("budget", 2048)


def _system(model: ScriptedModel) -> str:
    return "\n\n".join(block["text"] for block in model.last.body["system"])


def _command(agent, name: str, arg: str = "") -> shared.Reply:
    reply = shared.run(shared.Handle(agent, PERSONAS), name, arg)
    assert reply is not None and reply.level != "error", reply
    return reply


def test_personality_survives_new(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path)
    run(agent, "hi")
    _command(agent, "personality", "pirate")
    old = agent.session_id
    _command(agent, "new")
    run(agent, "hello again")
    assert agent.session_id != old
    assert PERSONAS["pirate"] in _system(model)  # the new session's prompt has it
    assert agent.session.choices.personality == "pirate"
    assert "pirate" in _command(agent, "personality").text.split("Available")[0]
    assert agent.store.get_session(agent.session_id)["personality"] == "pirate"


def test_personality_and_reasoning_survive_a_resume(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path, reasoning=BUDGET)
    run(agent, "hi")
    assert model.last.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    _command(agent, "personality", "poet")
    _command(agent, "reasoning", "off")
    run(agent, "and now?")
    sent = _system(model)
    agent.close()
    # the same installation settings (thinking on by default): the session's choices win
    again = AIAgent(agent.config, agent.store, session_id=agent.session_id, provider=model)
    run(again, "more")
    assert "thinking" not in model.last.body
    assert _system(model) == sent  # the same system text
    assert again.session.choices.reasoning.thinking == "off"
    assert again.session.choices.personality == "poet"
    _command(again, "new")  # and a new session from the resumed one keeps them too
    run(again, "fresh")
    assert "thinking" not in model.last.body and PERSONAS["poet"] in _system(model)


def test_a_sub_agent_uses_the_session_s_reasoning_and_its_parent_s_client(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path, reasoning=BUDGET)
    run(agent, "hi")
    _command(agent, "reasoning", "off")
    model.script(Reply(tool_calls=[ToolCall("delegate_task", {"goal": "look around"})]),
                 Reply(text="child report"), Reply(text="done"))
    run(agent, "delegate it")
    child = model.calls[-2]  # parent's tool call, the child's answer, the parent's answer
    assert child.request.session_id != agent.session_id
    assert all("thinking" not in c.body for c in model.calls[-3:])
    assert model.closed == 0  # the child borrowed the parent's adapter and left it open
