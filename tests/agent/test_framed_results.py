"""delegate_task's report and skill_view's text reach the model inside the
untrusted-data frame, like web_fetch's (fast tier: the scripted model); the system and
tools bytes stay those of a session without the change's effect (the guidance paragraph
is said already: other framed tools are on)."""

from __future__ import annotations

import json

from agent.tools.registry import discover
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent

SKILL = "---\nname: deploy\ndescription: Ship it.\n---\n# deploy\n1. Tag the release, then push the tag.\n"


def _bare(body: dict) -> str:
    """The system blocks and tools of one request without cache markers."""
    def strip(items: list[dict]) -> list[dict]:
        return [{k: v for k, v in i.items() if k != "cache_control"} for i in items]
    return json.dumps([strip(body["system"]), strip(body["tools"])], sort_keys=True)


def _results(body: dict) -> list[str]:
    return [b["content"] if isinstance(b["content"], str) else json.dumps(b["content"])
            for b in body["messages"][-1]["content"] if b.get("type") == "tool_result"]


def test_delegate_and_skill_view_results_are_framed(hermes_home, tmp_path):
    folder = hermes_home / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)

    model = ScriptedModel(Reply(tool_calls=[ToolCall("skill_view", {"name": "deploy"})]),
                          Reply(tool_calls=[ToolCall("delegate_task", {"goal": "look"})]))
    model.responder = lambda request: Reply(text="child report" if len(request.messages) == 1 else "done")
    agent = scripted_agent(model, hermes_home, tmp_path)
    try:
        run(agent, "deploy, then delegate")
        bodies = model.bodies
        viewed = next(r for b in bodies for r in _results(b) if "Tag the release" in r)
        assert viewed.startswith('<untrusted source="skill_view">') and viewed.endswith("</untrusted>")
        reported = next(r for b in bodies for r in _results(b) if "child report" in r)
        assert reported.startswith('<untrusted source="delegate_task">')
        parent = [b for b in bodies if "Delegated task" not in json.dumps(b.get("system"))]
        assert len(parent) == 3 and len({_bare(b) for b in parent}) == 1  # no cache miss
    finally:
        agent.close()


def test_the_tool_definitions_are_the_same_bytes():
    tools = {t.name: t for t in discover()}
    assert tools["skill_view"].untrusted and tools["delegate_task"].untrusted
    assert tools["web_fetch"].untrusted and tools["read_file"].untrusted  # the guidance is said already
