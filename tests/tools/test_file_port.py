"""The file tools' port (agent/tools/file_port.py): an editor's buffers take the place
of the disk only for the bytes - after the policy, plan mode, the rules and the /undo
checkpoint, and after the local open that refuses links out."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from agent.checkpoints import CheckpointStore
from agent.permissions.rules import parse


class Buffers:
    """An editor in memory: what it holds, what it was asked."""

    def __init__(self, texts: dict[str, str] | None = None, *, offered: bool = True,
                 saves: bool = False) -> None:
        self.texts = dict(texts or {})
        self.offered, self.saves = offered, saves
        self.asked: list[tuple[str, str]] = []

    def read_text(self, path: Path) -> str | None:
        self.asked.append(("read", str(path)))
        return self.texts.get(str(path)) if self.offered else None

    def write_text(self, path: Path, text: str) -> bool:
        self.asked.append(("write", str(path)))
        if not self.offered:
            return False
        self.texts[str(path)] = text
        if self.saves:  # as an editor that saves the buffer before it answers
            path.write_text(text)
        return True


def _with(ctx, port, **changes):
    return replace(ctx, services=replace(ctx.services, files=port), **changes)


def test_writes_and_patches_go_to_the_editor_not_the_disk(call, ctx):
    target = ctx.cwd / "a.py"
    target.write_text("x = 1\n")  # on disk; the editor's buffer is unsaved and newer
    port = Buffers({str(target): "x = 2\n"})
    mine = _with(ctx, port)
    read = call("read_file", mine, path="a.py")
    assert read.ok and "x = 2" in read.content  # the unsaved buffer counts
    assert call("patch", mine, path="a.py", old_string="x = 2", new_string="x = 3").ok
    assert "-x = 2" in mine.state.take_diff()  # the diff is against the buffer
    assert call("write_file", mine, path="b.py", content="y = 1\n").ok
    assert port.texts[str(target)] == "x = 3\n"
    assert port.texts[str(ctx.cwd / "b.py")] == "y = 1\n"
    assert target.read_text() == "x = 1\n" and not (ctx.cwd / "b.py").exists()


def test_a_port_that_is_not_offered_leaves_the_disk(call, ctx):
    port = Buffers(offered=False)
    assert call("write_file", _with(ctx, port), path="c.txt", content="disk\n").ok
    assert (ctx.cwd / "c.txt").read_text() == "disk\n" and port.asked


def test_the_checks_run_before_the_editor_is_asked(call, ctx, tmp_path):
    port = Buffers()
    outside = tmp_path / "elsewhere.txt"
    refused = call("write_file", _with(ctx, port), path=str(outside), content="no\n")
    assert not refused.ok and "outside" in refused.content
    plan = call("write_file", _with(ctx, port, mode="plan"), path="p.txt", content="no\n")
    assert not plan.ok and "plan mode" in plan.content
    rules = parse({"deny": ["write_file(./secret/**)"]}, "config.yaml")
    denied = call("write_file", _with(ctx, port, permissions=rules), path="secret/k", content="no")
    assert not denied.ok and "deny" in denied.content
    os.symlink(tmp_path, ctx.cwd / "out")  # a link out of the workspace
    linked = call("read_file", _with(ctx, port), path="out/elsewhere.txt")
    assert not linked.ok
    assert port.asked == []  # nothing reached the editor


def test_the_undo_checkpoint_is_taken_before_the_editor_writes(call, ctx):
    target = ctx.cwd / "u.txt"
    target.write_text("before\n")
    store = CheckpointStore.under(ctx.home, "s-port")
    store.begin_turn()
    port = Buffers({str(target): "before\n"}, saves=True)
    mine = _with(ctx, port)
    mine = replace(mine, services=replace(mine.services, checkpoints=store))
    assert call("write_file", mine, path="u.txt", content="after\n").ok
    assert target.read_text() == "after\n" and port.asked[-1][0] == "write"
    store.undo()
    assert target.read_text() == "before\n"
    store.close()
