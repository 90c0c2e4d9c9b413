"""Plan mode at dispatch (fast tier): tools that change things refuse, readers work."""

from __future__ import annotations

from dataclasses import replace

from agent.messages import Message
from agent.permissions.plan import NOTE_OFF, NOTE_ON, PLAN, note
from agent.sandbox.policy import SandboxSettings


def test_plan_mode_refuses_writes_patch_and_memory_even_under_yolo(call, ctx):
    (ctx.cwd / "a.txt").write_text("old\n")
    for yolo in (False, True):
        c = replace(ctx, mode=PLAN, yolo=yolo)
        for name, args in (("write_file", {"path": "b.txt", "content": "x"}),
                           ("patch", {"path": "a.txt", "old_string": "old", "new_string": "new"}),
                           ("memory", {"action": "add", "target": "memory", "content": "x"})):
            result = call(name, c, **args)
            assert not result.ok and "plan mode is on" in result.content, (name, result.content)
        assert call("read_file", c, path="a.txt").ok
        assert call("todo", c, todos=[{"id": "1", "content": "plan", "status": "pending"}]).ok
    assert (ctx.cwd / "a.txt").read_text() == "old\n" and not (ctx.cwd / "b.txt").exists()
    assert call("write_file", ctx, path="b.txt", content="x").ok  # plan mode off: works


def test_plan_mode_without_a_sandbox_refuses_the_terminal(call, ctx):
    c = replace(ctx, mode=PLAN, yolo=True, sandbox=SandboxSettings(enabled=False))
    result = call("terminal", c, command="touch made")
    assert not result.ok and "plan mode is on and there is no sandbox" in result.content
    assert not (ctx.cwd / "made").exists()


def test_the_note_is_sent_once_per_change():
    history: list[Message] = []
    assert note(history, "") == ""
    assert note(history, PLAN) == NOTE_ON
    history.append(Message("user", "hi", wire_suffix=NOTE_ON))
    assert note(history, PLAN) == ""
    assert note(history, "") == NOTE_OFF
    history.append(Message("user", "go", wire_suffix=NOTE_OFF))
    assert note(history, "") == ""
