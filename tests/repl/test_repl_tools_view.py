"""What tools did, on the screen: output tail, diff, and /expand (pty)."""

from __future__ import annotations

from tests.fakes import Reply, ToolCall


def test_command_output_tail_diff_and_expand(spawn_repl, fake_provider):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("terminal", {"command": "seq 101 130"})]),
        Reply(tool_calls=[ToolCall("write_file", {"path": "notes.txt",
                                                  "content": "alpha\nbeta [x]\n"})]),
        Reply(tool_calls=[ToolCall("patch", {"path": "notes.txt", "old_string": "beta [x]",
                                             "new_string": "gamma"})]),
        Reply(text="all done"))
    repl = spawn_repl()
    repl.send("count and write")
    shown = repl.expect("all done")
    assert "26 earlier lines (/expand shows it all)" in shown
    assert "127" in shown and "130" in shown and "\n  101" not in shown
    assert "+alpha" in shown and "+beta [x]" in shown  # the new file, as a diff
    assert "-beta [x]" in shown and "+gamma" in shown  # the patch
    repl.prompt()
    repl.send("/expand")
    expanded = repl.expect("+gamma")
    assert "⚙ patch" in expanded and "-beta [x]" in expanded
