"""search_files: both backends, one format; file-name search; limits and skips."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.tools.search_files import search


@pytest.fixture
def tree(ctx) -> Path:
    root = ctx.cwd
    (root / "src/pkg").mkdir(parents=True)
    (root / "src/pkg/a.py").write_text("import os\nTODO = 1\n\ndef todo():\n    # TODO: fix\n")
    (root / "src/b.txt").write_text("nothing here\nTODO later\n")
    (root / "src/z.py").write_text("x = 'TODO'\n")
    (root / "README.md").write_text("# TODO list\n")
    for skipped in (".git", "node_modules", ".venv"):
        (root / skipped).mkdir()
        (root / skipped / "hit.txt").write_text("TODO skipped\n")
    (root / "blob.bin").write_bytes(b"TODO\x00\x01")
    return root


@pytest.fixture
def python_backend(monkeypatch):
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", "python")


EXPECTED = [
    "README.md:1: # TODO list",
    "src/b.txt:2: TODO later",
    "src/pkg/a.py:2: TODO = 1",
    "src/pkg/a.py:5:     # TODO: fix",
    "src/z.py:1: x = 'TODO'",
]


def test_python_backend_format_order_and_skips(call, tree, python_backend):
    result = call("search_files", pattern="TODO")
    assert result.ok
    assert result.content.splitlines() == EXPECTED


def test_file_glob_path_and_limit(call, tree, python_backend):
    assert call("search_files", pattern="TODO", file_glob="*.py").content.splitlines() == EXPECTED[2:]
    assert call("search_files", pattern="TODO", file_glob="*.{md,txt}").content.splitlines() == EXPECTED[:2]
    assert call("search_files", pattern="TODO", path="src/pkg").content.splitlines() == [
        "src/pkg/a.py:2: TODO = 1",
        "src/pkg/a.py:5:     # TODO: fix",
    ]
    limited = call("search_files", pattern="TODO", limit=2).content.splitlines()
    assert limited[:2] == EXPECTED[:2]
    assert "first 2 matches" in limited[2]


def test_no_match_bad_regex_and_missing_path(call, tree, python_backend):
    assert call("search_files", pattern="nomatch-xyz").content.startswith("No matches")
    bad = call("search_files", pattern="(unclosed")
    assert not bad.ok and "regular expression" in bad.content
    assert "not found" in call("search_files", pattern="x", path="nope").content


def test_target_files_finds_names(call, tree):
    result = call("search_files", pattern="*.py", target="files")
    assert result.content.splitlines() == ["src/pkg/a.py", "src/z.py"]
    assert call("search_files", pattern="READ", target="files").content == "README.md"


def test_relative_paths_follow_the_session_cwd(call, ctx, tree, python_backend):
    ctx.state.cwd = str(tree / "src")
    assert call("search_files", pattern="later").content == "b.txt:2: TODO later"


@pytest.mark.wire  # runs rg
@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep is not installed")
def test_ripgrep_and_python_backends_agree(call, tree, monkeypatch):
    for pattern, glob in (("TODO", None), (r"def \w+", None), ("TODO", "*.py"), ("o", None)):
        rg = search(tree, pattern, file_glob=glob, limit=3, backend="rg")
        py = search(tree, pattern, file_glob=glob, limit=3, backend="python")
        assert rg == py
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", "rg")
    assert call("search_files", pattern="TODO").content.splitlines() == EXPECTED


@pytest.mark.wire  # runs rg (and git)
@pytest.mark.skipif(shutil.which("rg") is None or shutil.which("git") is None,
                    reason="ripgrep or git is not installed")
def test_rg_still_honours_a_parent_gitignore_when_searching_a_subfolder(tmp_path: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("src/gen/\n")
    (tmp_path / "src" / "gen").mkdir(parents=True)
    (tmp_path / "src" / "a.txt").write_text("needle\n")
    (tmp_path / "src" / "gen" / "b.txt").write_text("needle\n")
    found, _ = search(tmp_path / "src", "needle", backend="rg", where=(str(tmp_path), "src"))
    assert [m.path for m in found] == [tmp_path / "src" / "a.txt"]
