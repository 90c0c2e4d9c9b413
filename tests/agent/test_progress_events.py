"""Work in progress shown as it changes: the todo tool leaves a
TodoChanged event, a sub-agent's steps arrive as SubagentProgress while it runs (before
its ToolFinished); the REPL renders both. The agent layer prints nothing."""

from __future__ import annotations

from rich.console import Console

from agent.events import SubagentProgress, TodoChanged, ToolFinished
from hermes_cli.render.renderer import Renderer
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import make_agent, run, scripted_agent


def test_the_todo_list_is_announced_when_it_changes(hermes_home, tmp_path, capsys):
    items = [{"id": "1", "content": "read the parser", "status": "in_progress"},
             {"id": "2", "content": "fix [b] markup", "status": "pending"}]
    model = ScriptedModel(
        Reply(tool_calls=[ToolCall("todo", {"todos": items})]),
        Reply(tool_calls=[ToolCall("todo", {})]),  # a read: no change, no event
        Reply(tool_calls=[ToolCall("todo", {"todos": [{"id": "1", "status": "completed"}],
                                            "merge": True})]),
        Reply(text="done"))
    agent = scripted_agent(model, hermes_home, tmp_path, toolsets=("todo",))
    events = run(agent, "plan it")
    changes = [e for e in events if isinstance(e, TodoChanged)]
    assert [c.items for c in changes] == [
        (("1", "read the parser", "in_progress"), ("2", "fix [b] markup", "pending")),
        (("1", "read the parser", "completed"), ("2", "fix [b] markup", "pending"))]
    first_todo = next(i for i, e in enumerate(events) if isinstance(e, ToolFinished))
    assert events[first_todo + 1] == changes[0]  # right after the call that made it
    assert capsys.readouterr().out == ""

    console = Console(record=True, width=80)
    renderer = Renderer(console)
    renderer.handle(changes[1])
    renderer.handle(SubagentProgress("count the lines of every module", "read_file {}"))
    text = console.export_text()
    assert "todo 1/2 done" in text and "[x] read the parser" in text
    assert "[ ] fix [b] markup" in text  # shown as written, never markup
    assert "↳ sub-agent 'count the lines of every module': read_file {}" in text


def test_sub_agent_progress_arrives_while_it_runs(fake_provider, hermes_home, tmp_path):
    (tmp_path / "a.txt").write_text("alpha\n")
    agent = make_agent(fake_provider, hermes_home, tmp_path)

    def respond(rec):
        system = str(rec.body.get("system"))
        if "Delegated task" in system:
            if len(rec.body["messages"]) == 1:
                return Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})])
            return Reply(text="child report")
        if len(rec.body["messages"]) == 1:
            return Reply(tool_calls=[ToolCall("delegate_task", {"goal": "read a.txt"})])
        return Reply(text="all done")

    fake_provider.responder = respond
    events = run(agent, "delegate it")
    progress = [e.what for e in events if isinstance(e, SubagentProgress)]
    assert progress[0] == "started" and progress[-1] == "done"
    assert any(p.startswith("read_file") and "a.txt" in p for p in progress)
    finished = next(i for i, e in enumerate(events)
                    if isinstance(e, ToolFinished) and e.name == "delegate_task")
    last = max(i for i, e in enumerate(events) if isinstance(e, SubagentProgress))
    assert last < finished  # shown while it ran, not after
