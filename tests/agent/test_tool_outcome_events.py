"""ToolFinished carries the result and, for writes, the diff (through the real loop)."""

from __future__ import annotations

from agent.events import ToolFinished
from tests.fakes import Reply, ToolCall
from tests.helpers import make_agent, run


def test_tool_finished_carries_content_and_diff(fake_provider, hermes_home, tmp_path):
    (tmp_path / "a.txt").write_text("first\nsecond\n")
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})]),
        Reply(tool_calls=[ToolCall("patch", {"path": "a.txt", "old_string": "second",
                                             "new_string": "2nd"})]),
        Reply(text="done"))
    events = run(agent, "edit it")
    read, patched = [e for e in events if isinstance(e, ToolFinished)]
    assert "first" in read.content and "second" in read.content and read.diff == ""
    assert patched.content.startswith("Patched a.txt")
    assert "-second" in patched.diff.splitlines() and "+2nd" in patched.diff.splitlines()
