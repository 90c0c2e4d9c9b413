"""read_file, write_file and patch through the registry."""

from __future__ import annotations

import os
import stat

from agent.tools import read_file as read_file_module


def test_read_file_numbers_lines_and_resolves_relative_paths(call, ctx):
    (ctx.cwd / "a.txt").write_text("one\ntwo\nthree\n")
    result = call("read_file", path="a.txt")
    assert result.ok
    assert result.content == "     1|one\n     2|two\n     3|three"


def test_read_file_window_says_how_to_continue(call, ctx):
    (ctx.cwd / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    result = call("read_file", path="big.txt", offset=10, limit=5)
    lines = result.content.splitlines()
    assert lines[0] == "    10|line 10"
    assert lines[4] == "    14|line 14"
    assert lines[-1] == "[lines 10-14 of 100; continue with offset=15]"


def test_read_file_caps_characters(call, ctx):
    long = "x" * 1500
    (ctx.cwd / "wide.txt").write_text("".join(f"{long}\n" for _ in range(2000)))
    result = call("read_file", path="wide.txt", limit=2000)
    assert result.ok
    assert len(result.content) <= read_file_module.MAX_CHARS + 200
    assert "output capped" in result.content and "continue with offset=" in result.content


def test_read_file_refuses_binary_missing_and_directories(call, ctx):
    (ctx.cwd / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    (ctx.cwd / "config.yaml").write_text("a: 1\n")
    binary = call("read_file", path="blob.bin")
    assert not binary.ok and "binary" in binary.content
    missing = call("read_file", path="config.yml")
    assert not missing.ok and "not found" in missing.content and "config.yaml" in missing.content
    folder = call("read_file", path=".")
    assert not folder.ok and "directory" in folder.content


def test_read_file_past_end_and_empty(call, ctx):
    (ctx.cwd / "short.txt").write_text("a\n")
    (ctx.cwd / "empty.txt").write_text("")
    assert "past the end" in call("read_file", path="short.txt", offset=5).content
    assert "empty" in call("read_file", path="empty.txt").content


def test_write_file_creates_parents_and_reports_size(call, ctx):
    result = call("write_file", path="deep/er/new.py", content="print(1)\nprint(2)\n")
    assert result.ok, result.content
    assert result.content == "Created deep/er/new.py: 18 bytes, 2 lines."
    assert (ctx.cwd / "deep/er/new.py").read_text() == "print(1)\nprint(2)\n"
    assert [p.name for p in (ctx.cwd / "deep/er").iterdir()] == ["new.py"]  # no temp files left


def test_write_file_overwrite_keeps_mode(call, ctx):
    target = ctx.cwd / "run.sh"
    target.write_text("old")
    os.chmod(target, 0o755)
    result = call("write_file", path=str(target), content="#!/bin/sh\necho hi")
    assert result.content.startswith("Overwrote") and "2 lines" in result.content
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert not call("write_file", path=".", content="x").ok


def test_patch_replaces_a_unique_match(call, ctx):
    target = ctx.cwd / "m.py"
    target.write_text("def f():\n    return 1\n\ndef g():\n    return 2\n")
    result = call("patch", path="m.py", old_string="    return 2", new_string="    return 3")
    assert result.ok and result.content == "Patched m.py: 1 replacement at line 5."
    assert target.read_text().endswith("return 3\n")


def test_patch_multiple_matches_lists_lines_unless_replace_all(call, ctx):
    target = ctx.cwd / "m.py"
    target.write_text("x = 1\ny = 2\nx = 1\n")
    result = call("patch", path="m.py", old_string="x = 1", new_string="x = 9")
    assert not result.ok and "2 times" in result.content and "lines 1, 3" in result.content
    assert target.read_text() == "x = 1\ny = 2\nx = 1\n"
    result = call("patch", path="m.py", old_string="x = 1", new_string="x = 9", replace_all=True)
    assert result.ok and "2 replacements" in result.content
    assert target.read_text() == "x = 9\ny = 2\nx = 9\n"


def test_patch_no_match_hints(call, ctx):
    target = ctx.cwd / "m.py"
    target.write_text("def f():\n    return compute(value)\n")
    indent = call("patch", path="m.py", old_string="def f():\n  return compute(value)", new_string="z")
    assert not indent.ok and "whitespace" in indent.content and "lines 1-2" in indent.content
    close = call("patch", path="m.py", old_string="return compute(valeu)", new_string="z")
    assert not close.ok and "closest line is 2" in close.content


def test_patch_errors(call, ctx):
    (ctx.cwd / "m.py").write_text("a\n")
    assert "does not exist" in call("patch", path="nope.py", old_string="a", new_string="b").content
    assert "empty" in call("patch", path="m.py", old_string="", new_string="b").content
    assert "identical" in call("patch", path="m.py", old_string="a", new_string="a").content


def test_patch_handles_crlf_files_with_lf_arguments(call, ctx):
    target = ctx.cwd / "w.txt"
    target.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    result = call("patch", path="w.txt", old_string="one\ntwo", new_string="uno\ndos")
    assert result.ok, result.content
    assert target.read_bytes() == b"uno\r\ndos\r\nthree\r\n"
