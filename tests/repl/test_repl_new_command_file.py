"""A command file added mid-session: /NAME says the file appeared and how to load it
(it was "unknown command" with no hint). Wire tier: the real REPL in a pty."""

from __future__ import annotations


def test_a_command_file_added_mid_session_is_named_with_how_to_load_it(spawn_repl, hermes_home,
                                                                        tmp_path):
    repl = spawn_repl()
    (hermes_home / "commands").mkdir(exist_ok=True)
    (hermes_home / "commands" / "review.md").write_text("Review it.\n")
    repl.send("/review")
    out = repl.expect("hermes -c")
    assert "review.md appeared after this session started" in " ".join(out.split()), out
    repl.prompt()
    (tmp_path / "work" / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / "work" / ".claude" / "commands" / "ship.md").write_text("Ship it.\n")
    repl.send("/ship")
    out = repl.expect("trust them")
    assert ".claude/commands/ship.md" in "".join(out.split()), out
    repl.prompt()
    repl.send("/nosuch")
    repl.expect("unknown command /nosuch")
