"""Plan mode end to end: the real agent and SDK against the fake server; a write, a
patch and a shell command change nothing in plan mode (with and without --yolo), work
after /plan off, and the tools and system bytes never change (no cache miss)."""

from __future__ import annotations

import json

import pytest

from agent.permissions.plan import NOTE_OFF, NOTE_ON
from tests.fakes import Reply, ToolCall
from tests.helpers import make_agent, run

pytestmark = pytest.mark.wire

CHANGES = [ToolCall("write_file", {"path": "new.txt", "content": "x\n"}),
           ToolCall("patch", {"path": "seed.txt", "old_string": "old", "new_string": "new"}),
           ToolCall("terminal", {"command": "touch made.txt && echo done"})]


def _results(body) -> str:
    return json.dumps([b for b in body["messages"][-1]["content"] if b["type"] == "tool_result"])


def _user_text(body) -> str:
    for message in reversed(body["messages"]):
        if message["role"] == "user" and any(b.get("type") == "text" for b in message["content"]):
            return "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")
    return ""


@pytest.mark.parametrize("yolo", [False, True])
def test_plan_mode_changes_nothing_then_plan_off_works(fake_provider, hermes_home, tmp_path, yolo):
    work = tmp_path / "work"
    work.mkdir()
    (work / "seed.txt").write_text("old\n")
    agent = make_agent(fake_provider, hermes_home, work, yolo=yolo, plan=True)
    try:
        fake_provider.script(Reply(tool_calls=CHANGES), Reply(text="planned"))
        run(agent, "change things")
        planned = _results(fake_provider.requests[-1].body)
        assert planned.count("plan mode is on") == 2, planned  # write_file, patch
        assert "Read-only file system" in planned, planned  # the sandbox stopped the shell
        assert (work / "seed.txt").read_text() == "old\n"
        assert not (work / "new.txt").exists() and not (work / "made.txt").exists()
        assert NOTE_ON.strip() in _user_text(fake_provider.requests[-1].body)

        agent.set_mode("")  # what /plan off does
        fake_provider.script(Reply(tool_calls=CHANGES), Reply(text="done"))
        run(agent, "now do it")
        done = _results(fake_provider.requests[-1].body)
        assert "plan mode" not in done, done
        assert (work / "seed.txt").read_text() == "new\n"
        assert (work / "new.txt").exists() and (work / "made.txt").exists()
        assert NOTE_OFF.strip() in _user_text(fake_provider.requests[-1].body)

        agent.set_mode("plan")
        fake_provider.script(Reply(text="ok"))
        run(agent, "plan again")
        bodies = [r.body for r in fake_provider.requests]
        assert len({json.dumps(b["tools"], sort_keys=True) for b in bodies}) == 1
        systems = {"".join(block["text"] for block in b["system"]) for b in bodies}
        assert len(systems) == 1, [b["system"] for b in bodies]  # (breakpoints may move)
        # earlier user messages (with their notes) are re-sent byte-identically
        first, last = bodies[0]["messages"][0], bodies[-1]["messages"][0]
        assert first["content"][0]["text"] == last["content"][0]["text"]
        misses = [r for r in agent.store.usage_rows(agent.session_id) if r.get("miss_cause")]
        assert [m["miss_cause"] for m in misses] == ["cold"] or not misses, misses
    finally:
        agent.close()


def test_plan_mode_lets_a_read_only_sub_agent_research(fake_provider, hermes_home, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the answer is 42\n")
    agent = make_agent(fake_provider, hermes_home, work, plan=True)

    def respond(rec):
        if "Delegated task" in str(rec.body.get("system")):  # the sub-agent: reads, tries a write
            if len(rec.body["messages"]) == 1:
                return Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"}),
                                         ToolCall("write_file", {"path": "x.txt", "content": "x"})])
            return Reply(text="child report: " + _results(rec.body)[:400])
        if len(rec.body["messages"]) == 1:
            return Reply(tool_calls=[ToolCall("delegate_task", {"goal": "find the answer"})])
        return Reply(text="planned")

    fake_provider.responder = respond
    try:
        run(agent, "research, then plan")
        delegated = _results(fake_provider.requests[-1].body)
        assert "plan mode is on" not in delegated.split("child report")[0], delegated  # it ran
        assert "the answer is 42" in delegated  # the child read the file
        assert "plan mode is on: write_file changes things" in delegated  # and wrote nothing
        assert not (work / "x.txt").exists()
    finally:
        agent.close()
