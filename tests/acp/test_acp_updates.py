"""hermes events -> ACP updates, and what the wire answers (pure: fast tier)."""

from __future__ import annotations

from pathlib import Path

from agent.events import ToolFinished, ToolStarted
from agent.usage import Usage
from hermes_acp import updates
from hermes_acp.wire import _invalid

DIFF = "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = 20\n c = 3\n"


def test_a_write_is_an_edit_with_its_location_and_proposed_content():
    event = ToolStarted("c1", "write_file", "", '{"path":"src/m.py","content":"x\\n"}')
    fields = updates.started(event, Path("/proj"))
    assert fields["kind"] == "edit" and fields["locations"] == [{"path": "/proj/src/m.py"}]
    assert fields["content"] == [{"type": "diff", "path": "/proj/src/m.py", "old_text": None,
                                  "new_text": "x\n"}]
    assert updates.started(ToolStarted("c2", "terminal", "", '{"command":"ls"}'),
                           Path("/p"))["kind"] == "execute"


def test_a_finished_write_shows_both_sides_of_its_diff():
    done = updates.finished(ToolFinished("c1", "patch", True, 0.1, "Patched m.py", "", DIFF),
                            "/proj/m.py")
    assert done["status"] == "completed"
    assert done["content"] == [{"type": "diff", "path": "/proj/m.py",
                                "old_text": "a = 1\nb = 2\nc = 3\n",
                                "new_text": "a = 1\nb = 20\nc = 3\n"}]
    created = "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+y\n"
    assert updates.sides(created) == ("", "y\n", True)
    failed = updates.finished(ToolFinished("c3", "read_file", False, 0.1, "Error", "Error: x"), None)
    assert failed["status"] == "failed" and failed["content"][0]["content"]["text"] == "Error: x"


def test_the_todo_list_is_a_plan_and_the_turn_ends_with_its_usage():
    items = (("1", "read", "completed"), ("2", "write", "in_progress"), ("3", "old", "cancelled"))
    assert updates.plan(items) == [
        {"content": "read", "priority": "medium", "status": "completed"},
        {"content": "write", "priority": "medium", "status": "in_progress"}]
    assert updates.stop_reason("cancelled") == "cancelled"
    assert updates.stop_reason("max_iterations") == "max_turn_requests"
    got = updates.usage(Usage(uncached=10, write_5m=100, cache_read=900, output=7))
    assert got == {"input_tokens": 1010, "output_tokens": 7, "total_tokens": 1017,
                   "cached_read_tokens": 900, "cached_write_tokens": 100}
    assert "cached_read_tokens" not in updates.usage(Usage(uncached=5, cache_known=False))


def test_what_the_wire_calls_invalid():
    assert _invalid([1]) and _invalid({"jsonrpc": "2.0"}) and _invalid({"method": 3})
    assert _invalid({"method": "x", "params": "no"})
    assert _invalid({"method": "session/new", "params": {}}) is None
    assert _invalid({"id": 1, "result": None}) is None
