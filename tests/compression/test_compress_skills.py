"""A skill written during a session joins the index of compaction's child (fast tier):
the child's stable layer is rebuilt, the running one never was."""

from __future__ import annotations

from tests.fakes import Reply, ToolCall

SKILL = "---\nname: parser-checks\ndescription: Check the parser part by part.\n---\n1. Read.\n"


def test_compaction_child_lists_a_skill_written_before_it(session):
    s = session(toolsets=("file", "skills"))
    s.tool_turn()
    s.replies.extend([Reply(tool_calls=[ToolCall("skill_manage", {
        "action": "create", "name": "parser-checks", "content": SKILL})]), Reply(text="saved")])
    list(s.agent.run_turn("save how we check the parser"))
    s.tool_turn()
    before = s.agent.stable
    assert "parser-checks" not in before
    assert {call.body["system"][0]["text"] for call in s.calls} == {s.agent.session.blocks[0][1]}
    list(s.agent.compress())
    assert s.agent.session.parent_id is not None
    assert "- parser-checks: Check the parser part by part." in s.agent.stable
