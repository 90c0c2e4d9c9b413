"""Review findings: session state that must follow deliberate switches and restarts
(on the scripted model; the sub-agent test keeps the fake server, as children build
their own provider)."""

from __future__ import annotations

from agent.agent import AIAgent
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import Answer, ScriptedModel
from tests.helpers import MODEL, make_agent, run, scripted_agent

OTHER = "claude-opus-5"


def test_sub_agent_runs_on_the_model_switched_to(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    agent.switch_model(OTHER)
    fake_provider.script(Reply(tool_calls=[ToolCall("delegate_task", {"goal": "look around"})]),
                         Reply(text="child report"), Reply(text="done"))
    run(agent, "delegate it")
    models = [r.body["model"] for r in fake_provider.requests]
    assert models == [OTHER, OTHER, OTHER]


def test_personality_after_model_switch_keeps_the_new_model_line(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path)
    agent.switch_model(OTHER)
    agent.set_personality("pirate", "Talk like a pirate.")
    assert f"Model: {OTHER} (anthropic)" in agent.stable
    assert f"Model: {MODEL} (anthropic)" not in agent.stable
    run(agent, "hi")
    assert f"Model: {OTHER} (anthropic)" in "\n\n".join(b["text"] for b in model.last.body["system"])


def test_resume_chains_diagnostics_to_the_last_main_call(hermes_home, tmp_path):
    model = ScriptedModel(Answer(text="hello back", response_id="msg_main"))
    agent = scripted_agent(model, hermes_home, tmp_path)
    run(agent, "hello")
    main_id = "msg_main"
    # what delegate_task records for a sub-agent's call: no response id of this session
    agent.store.add_usage(agent.session_id, turn=1, call_index=0, model=MODEL, uncached=10,
                          output=1, cache_read=0, miss_detail="sub-agent: ok")
    again = AIAgent(agent.config, agent.store, session_id=agent.session_id, provider=model)
    run(again, "more")
    assert model.last.body["diagnostics"] == {"previous_message_id": main_id}


def test_resume_continues_the_call_numbering(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path)
    run(agent, "hello")
    run(agent, "again")
    again = AIAgent(agent.config, agent.store, session_id=agent.session_id, provider=model)
    run(again, "more")
    indexes = [r["call_index"] for r in agent.store.usage_rows(agent.session_id)]
    assert indexes == [1, 2, 3]


def test_soul_md_that_is_not_utf8_does_not_stop_the_agent(hermes_home, tmp_path):
    (hermes_home / "SOUL.md").write_bytes(b"I am \xff a soul")
    agent = scripted_agent(ScriptedModel(), hermes_home, tmp_path)
    assert agent.stable.startswith("I am \ufffd a soul")


def test_resume_marks_where_the_previous_request_ended_in_the_repaired_history(
        hermes_home, tmp_path):
    from agent.messages import Message
    from agent.messages import ToolCall as Call

    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path)
    run(agent, "first")
    # an old tool call left unanswered (a turn abandoned mid-way): repaired() answers it
    # on the wire, so wire indexes run one ahead of the stored ones from here on
    agent.conversation.append(Message("assistant", "", tool_calls=(Call("c1", "todo"),)))
    run(agent, "second")
    again = AIAgent(agent.config, agent.store, session_id=agent.session_id, provider=model)
    run(again, "third")
    marked = [(i, j) for i, m in enumerate(model.last.body["messages"])
              for j, b in enumerate(m["content"]) if "cache_control" in b]
    # wire: "first" | [reply, tool call] | [result, "second"] | reply | "third"
    assert marked == [(2, 1), (4, 0)]
