"""File tools under the sandbox policy, in-process: secrets never read (also through
`..` and symlinks), writes outside the writable roots only with a person's yes, memory
files only through the memory tool. The temp root is redirected into tmp_path/tmp so the
fake home beside it is outside every writable root."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from agent.errors import ToolError
from agent.tools.patch import patch
from agent.tools.read_file import read_file
from agent.tools.registry import ToolContext
from agent.tools.search_files import search_files
from agent.tools.write_file import write_file


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _isolated_env: Path) -> dict[str, Path]:
    home, ws = tmp_path / "home", tmp_path / "home" / "project"
    (home / ".ssh").mkdir(parents=True)
    ws.mkdir()
    (tmp_path / "tmp").mkdir()
    (home / ".ssh" / "id_rsa").write_text("PLANTED-KEY\n")
    (home / ".bashrc").write_text("alias x=y\n")
    (_isolated_env / ".env").write_text("OPENAI_API_KEY=PLANTED-ENV\n")
    (_isolated_env / "memories").mkdir()
    (_isolated_env / "memories" / "MEMORY.md").write_text("tea\n")
    (ws / "link").symlink_to(home / ".ssh" / "id_rsa")
    (ws / "outlink").symlink_to(home / ".bashrc")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return {"home": home, "ws": ws, "hh": _isolated_env}


def _ctx(world: dict[str, Path], approve=None, yolo: bool = False) -> ToolContext:  # noqa: ANN001
    return ToolContext(session_id="s", home=world["hh"], cwd=world["ws"], approve=approve, yolo=yolo)


@pytest.mark.parametrize("path", ["~/.ssh/id_rsa", "../.ssh/id_rsa", "link", "$HERMES/.env",
                                  "sub/../../.ssh/id_rsa"])
def test_secret_locations_are_never_read(world: dict[str, Path], path: str) -> None:
    path = path.replace("$HERMES", str(world["hh"]))
    with pytest.raises(ToolError, match="secret location"):
        read_file({"path": path}, _ctx(world, approve=lambda *_: True, yolo=True))


@pytest.mark.parametrize("backend", [
    "python",
    pytest.param("rg", marks=[pytest.mark.wire,  # runs rg
                              pytest.mark.skipif(shutil.which("rg") is None,
                                                 reason="ripgrep is not installed")]),
])
def test_search_skips_secret_locations(world: dict[str, Path], backend: str,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", backend)
    (world["ws"] / "a.txt").write_text("LANTED-KEY twin\n")
    out = search_files({"pattern": "LANTED.KEY", "path": str(world["home"])}, _ctx(world))
    assert "PLANTED-KEY" not in out and "id_rsa" not in out and "a.txt" in out
    names = search_files({"pattern": "id_rsa", "path": "~", "target": "files"}, _ctx(world))
    assert ".ssh" not in names
    with pytest.raises(ToolError, match="secret location"):
        search_files({"pattern": "PLANTED", "path": str(world["hh"])}, _ctx(world))


@pytest.mark.parametrize("path", ["../../outside.txt", "~/.bashrc", "outlink", "/etc/hermes-test"])
@pytest.mark.parametrize("yolo", [False, True])
def test_writes_outside_are_refused_without_a_person(world: dict[str, Path], path: str, yolo: bool) -> None:
    before = (world["home"] / ".bashrc").read_text()
    with pytest.raises(ToolError, match="outside the directories tools may write|outside what tools see"):
        write_file({"path": path, "content": "pwned"}, _ctx(world, yolo=yolo))
    with pytest.raises(ToolError, match="outside what tools see"):  # ~/.bashrc: not in the home's view
        patch({"path": "outlink", "old_string": "x", "new_string": "z"}, _ctx(world, yolo=yolo))
    assert (world["home"] / ".bashrc").read_text() == before
    assert not (world["home"].parent.parent / "outside.txt").exists()


def test_a_person_may_allow_one_write(world: dict[str, Path]) -> None:
    asked: list[str] = []
    write_file({"path": "../../notes.txt", "content": "ok"}, _ctx(world, approve=lambda c, r: asked.append(c) or True))
    outside = world["home"].parent / "notes.txt"  # beside the home: not in the temp root
    assert outside.read_text() == "ok" and asked == [f"write {outside}"]
    with pytest.raises(ToolError, match="declined"):
        write_file({"path": "../../no.txt", "content": "x"}, _ctx(world, approve=lambda *_: False))
    write_file({"path": "inside.txt", "content": "fine"}, _ctx(world))  # no question inside


def test_memory_files_only_through_the_memory_tool(world: dict[str, Path]) -> None:
    with pytest.raises(ToolError, match="memory tool"):
        write_file({"path": str(world["hh"] / "memories" / "MEMORY.md"), "content": "x"},
                   _ctx(world, approve=lambda *_: True, yolo=True))
    assert (world["hh"] / "memories" / "MEMORY.md").read_text() == "tea\n"
