"""todo: read, replace and merge the session's task list."""

from __future__ import annotations


def test_empty_then_replace_then_read(call, ctx):
    assert call("todo").content == "Todo list is empty."
    todos = [
        {"id": "1", "content": "Reproduce the bug", "status": "completed"},
        {"id": "2", "content": "Fix it", "status": "in_progress"},
        {"id": "3", "content": "Add a test", "status": "pending"},
    ]
    expected = "Todo (1/3 completed):\n[x] 1. Reproduce the bug\n[>] 2. Fix it\n[ ] 3. Add a test"
    assert call("todo", todos=todos).content == expected
    assert call("todo").content == expected
    assert ctx.state.todos[1] == {"id": "2", "content": "Fix it", "status": "in_progress"}


def test_merge_updates_by_id_and_appends(call):
    call("todo", todos=[{"id": "1", "content": "A", "status": "pending"}])
    result = call("todo", todos=[{"id": "1", "status": "completed"}, {"id": "2", "content": "B", "status": "cancelled"}], merge=True)
    assert result.content == "Todo (1/2 completed):\n[x] 1. A\n[-] 2. B"
    replaced = call("todo", todos=[{"id": "9", "content": "Only", "status": "pending"}])
    assert replaced.content == "Todo (0/1 completed):\n[ ] 9. Only"


def test_validation(call):
    assert "status must be" in call("todo", todos=[{"id": "1", "content": "x", "status": "done"}]).content
    assert "needs 'content'" in call("todo", todos=[{"id": "1", "status": "pending"}]).content
    assert "duplicate" in call("todo", todos=[{"id": "1", "content": "a"}, {"id": "1", "content": "b"}]).content
    assert "must be a list" in call("todo", todos="x").content
    assert call("todo").content == "Todo list is empty."  # failed calls changed nothing
