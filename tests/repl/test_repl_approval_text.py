"""The REPL's approval question shows what runs (wire tier: the real REPL in
a pty against the fake provider): the model's command with its control characters as
visible escapes, so `\\r` + ESC[2K cannot redraw the line with a benign command."""

from __future__ import annotations

from tests.fakes import Reply, ToolCall

REAL = "rm -rf *"
FAKE = "ls ~/Downloads"


def test_a_command_hiding_behind_a_line_erase_is_shown_with_its_real_bytes(spawn_repl,
                                                                          fake_provider):
    command = f"{REAL}\r\x1b[2K{FAKE}"
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": command})]),
                         Reply(text="left it alone"))
    repl = spawn_repl()
    repl.send("tidy up")
    repl.expect("[y]es / [n]o / [a]lways this session:")
    raw = repl._raw
    assert f"{REAL}\\r\\x1b[2K{FAKE}" in raw  # written out, byte by byte, on one line
    assert f"\r\x1b[2K{FAKE}" not in raw  # never sent to the terminal as a line erase
    repl.send("n")
    repl.expect("left it alone")
    repl.prompt()


def test_a_multi_line_command_is_shown_whole(spawn_repl, fake_provider):
    command = REAL + "\n" + "\n".join(f"echo step {i}" for i in range(12))
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": command})]),
                         Reply(text="did nothing"))
    repl = spawn_repl()
    repl.send("tidy up")
    before = repl.expect("[y]es / [n]o / [a]lways this session:")
    assert all(f"echo step {i}" in before for i in range(12))
    repl.send("n")
    repl.expect("did nothing")
