"""write_file and patch leave a diff of their change for the loop (never for the model)."""

from __future__ import annotations


def test_patch_leaves_a_unified_diff(call, ctx):
    (ctx.cwd / "m.py").write_text("a = 1\nb = 2\nc = 3\n")
    result = call("patch", path="m.py", old_string="b = 2", new_string="b = 20")
    assert result.ok and "b = 20" not in result.content  # the model sees the short line only
    diff = ctx.state.take_diff()
    assert diff.splitlines()[:2] == ["--- a/m.py", "+++ b/m.py"]
    assert "-b = 2" in diff.splitlines() and "+b = 20" in diff.splitlines()


def test_write_file_diffs_against_the_old_content_or_nothing(call, ctx):
    assert call("write_file", path="new.txt", content="one\ntwo\n").ok
    assert ctx.state.take_diff().splitlines()[-2:] == ["+one", "+two"]
    assert call("write_file", path="new.txt", content="one\nthree\n").ok
    lines = ctx.state.take_diff().splitlines()
    assert "-two" in lines and "+three" in lines and "+one" not in lines
    (ctx.cwd / "bin.dat").write_bytes(b"\xff\xfe\x00")
    assert call("write_file", path="bin.dat", content="text\n").ok
    assert ctx.state.take_diff() == ""  # the old content was not text: no diff
