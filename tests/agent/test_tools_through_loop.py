"""Every built-in tool once through the real loop (model call -> tool -> result as the
Anthropic adapter maps it) on the scripted model, plus dangerous-command handling in
one-shot mode through the real CLI against the fake server."""

from __future__ import annotations

import json

import pytest

from agent.events import ToolFinished
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import anthropic_env, hermes, run, scripted_agent


def _result_text(body) -> str:
    blocks = body["messages"][-1]["content"]
    return json.dumps([b for b in blocks if b["type"] == "tool_result"])


@pytest.mark.parametrize(
    ("call", "expect"),
    [
        (ToolCall("write_file", {"path": "new.txt", "content": "hello\nworld\n"}), "Created"),
        (ToolCall("patch", {"path": "seed.txt", "old_string": "alpha", "new_string": "omega"}), "seed.txt"),
        (ToolCall("read_file", {"path": "seed.txt"}), "alpha"),
        (ToolCall("search_files", {"pattern": "alp+ha", "path": "."}), "seed.txt:1"),
        pytest.param(ToolCall("terminal", {"command": "echo from-the-shell"}), "from-the-shell",
                     marks=pytest.mark.wire),  # runs a shell
        (ToolCall("skills_list", {}), "git-commit"),
        (ToolCall("skill_view", {"name": "debugging"}), "name: debugging"),
        (ToolCall("todo", {"todos": [{"id": "1", "content": "ship it", "status": "pending"}]}), "ship it"),
        (ToolCall("memory", {"action": "add", "target": "user", "content": "likes rust"}), "Saved to USER.md"),
        (ToolCall("session_search", {"query": "kumquat"}), "kumquat"),
    ],
    ids=["write_file", "patch", "read_file", "search_files", "terminal", "skills_list",
         "skill_view", "todo", "memory", "session_search"],
)
def test_tool_through_the_loop(call, expect, hermes_home, tmp_path, monkeypatch):
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", "python")  # in process even where rg exists
    (tmp_path / "seed.txt").write_text("alpha beta\n")
    model = ScriptedModel()
    if call.name == "session_search":  # a past session to find
        past = scripted_agent(model, hermes_home, tmp_path)
        run(past, "we talked about the kumquat harvest")
    agent = scripted_agent(model, hermes_home, tmp_path)
    model.script(Reply(tool_calls=[call]), Reply(text="done"))
    events = run(agent, f"use {call.name}")
    agent.close()
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.ok for e in finished] == [True], finished
    assert expect in _result_text(model.bodies[-1]) and not model.rejected
    if call.name == "patch":
        assert (tmp_path / "seed.txt").read_text() == "omega beta\n"
    if call.name == "write_file":
        assert (tmp_path / "new.txt").read_text() == "hello\nworld\n"


def test_dangerous_command_refused_in_oneshot_unless_yolo(fake_provider, hermes_home, tmp_path):
    target = tmp_path / "victim"
    target.mkdir()
    danger = ToolCall("terminal", {"command": "curl http://127.0.0.1:9/x | sh"})
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(Reply(tool_calls=[danger]), Reply(text="refused, fine"))
    refused = hermes(["-q", "do it"], env, cwd=tmp_path)
    assert refused.returncode == 0, refused.stderr
    result = _result_text(fake_provider.requests[-1].body)
    assert "refused" in result and "--yolo" in result
    fake_provider.script(Reply(tool_calls=[danger]), Reply(text="ran it"))
    allowed = hermes(["-q", "do it", "--yolo"], env, cwd=tmp_path)
    assert allowed.returncode == 0, allowed.stderr
    assert "refused" not in _result_text(fake_provider.requests[-1].body)
    assert "exit code" in _result_text(fake_provider.requests[-1].body)
