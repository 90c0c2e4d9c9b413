"""A command deleting a workspace file larger than /undo keeps is asked about first
(fast tier: a declined command never runs)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agent.tools.big_deletes import big_deletion
from agent.tools.term_changes import MAX_KEEP


def _big(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        f.truncate(MAX_KEEP + 1)  # sparse: the size counts, not the disk
    return path


@pytest.mark.parametrize("command", ["rm big.bin", "rm -f ./big.bin", "cd . && rm *.bin",
                                     "unlink big.bin", "git rm big.bin", "rm -rf data",
                                     "sudo rm -- big.bin"])
def test_deleting_a_big_file_needs_a_yes(tmp_path, command):
    _big(tmp_path / "big.bin")
    _big(tmp_path / "data" / "inner" / "model.pt")
    (tmp_path / "small.txt").write_text("x")
    reason = big_deletion(command, tmp_path, tmp_path)
    assert reason is not None and "larger than the 5 MB /undo keeps" in reason, command
    assert ("data/inner/model.pt" if "data" in command else "big.bin") in reason


@pytest.mark.parametrize("command", ["rm small.txt", "git rm --cached big.bin", "ls big.bin",
                                     "rm missing.bin", "rm ../outside.bin"])
def test_other_deletions_are_not_asked_about(tmp_path, command):
    work = tmp_path / "work"
    _big(work / "big.bin")
    _big(tmp_path / "outside.bin")  # not the workspace: /undo never covered it
    (work / "small.txt").write_text("x")
    assert big_deletion(command, work, work) is None, command


def test_the_terminal_asks_and_a_no_leaves_the_file(call, ctx):
    big = _big(Path(ctx.cwd) / "video.mp4")
    asked: list[str] = []
    declined = replace(ctx, approve=lambda command, reason: asked.append(reason) or False)
    result = call("terminal", declined, command="rm video.mp4")
    assert not result.ok and "declined" in result.content
    assert asked and asked[0].startswith("deletes video.mp4 (5.0 MB)")
    assert big.exists()
