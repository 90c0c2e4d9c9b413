"""search_files never hangs on a FIFO, /dev/zero or a link to one: special files are
skipped (or refused as the target), and ripgrep's deadline holds while its output is
read."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from agent.errors import ToolError
from agent.tools import search_files as sf
from agent.tools.registry import ToolContext

BACKENDS = ["python", pytest.param("rg", marks=[
    pytest.mark.wire, pytest.mark.skipif(shutil.which("rg") is None, reason="no ripgrep")])]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("needle here\n")
    os.mkfifo(ws / "fifo")
    (ws / "zero").symlink_to("/dev/zero")
    (ws / "fifolink").symlink_to("fifo")
    return ws


@pytest.mark.parametrize("backend", BACKENDS)
def test_special_files_never_hang_a_search(tree: Path, hermes_home: Path, call, backend: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", backend)
    ctx = ToolContext(session_id="s", home=hermes_home, cwd=tree, yolo=True)
    start = time.monotonic()
    whole = call("search_files", ctx, pattern="needle")
    assert whole.ok and "a.txt:1: needle here" in whole.content
    for target in ("fifo", "fifolink", "/dev/zero"):
        result = call("search_files", ctx, pattern="needle", path=target)
        assert not result.ok and "not a regular file or directory" in result.content, target
    refused = call("search_files", ctx, pattern="needle", path="zero")
    assert not refused.ok and "leads outside" in refused.content
    for target in ("fifo", "/dev/zero"):
        read = call("read_file", ctx, path=target)
        assert not read.ok and "not a regular file" in read.content
    assert time.monotonic() - start < 20


@pytest.mark.wire
@pytest.mark.skipif(shutil.which("rg") is None, reason="no ripgrep")
def test_ripgreps_deadline_holds_while_its_output_is_read(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sf, "RG_TIMEOUT", 1.0)
    os.mkfifo(tmp_path / "fifo")
    fd = os.open(tmp_path / "fifo", os.O_RDWR)  # a writer held open: rg would wait forever
    start = time.monotonic()
    try:
        with pytest.raises(ToolError, match="longer than"):
            sf._search_rg(fd, tmp_path / "fifo", "x", None, 10)
    finally:
        os.close(fd)
    assert time.monotonic() - start < 15
