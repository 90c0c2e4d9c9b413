"""A Claude Code command file works as written in the REPL: `$1`/`$2`, `@path`,
`` !`cmd` `` run through the sandboxed terminal tool, `allowed-tools`, `model:` for the
one message (wire tier: the real REPL in a pty against the fake provider)."""

from __future__ import annotations

from tests.fakes import Reply

SHIP = """---
description: Ship a release
argument-hint: VERSION WHO
model: other-model
allowed-tools: terminal(python3 -c*)
---
Release $1 for $2. Notes: @notes.txt
Computed: !`python3 -c "print(6 * 7, '$1')"`
"""


def _user_text(body: dict) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


def test_a_claude_code_command_file_runs_as_written(spawn_repl, fake_provider, hermes_home,
                                                      tmp_path):
    (hermes_home / "commands").mkdir()
    (hermes_home / "commands" / "ship.md").write_text(SHIP)
    (tmp_path / "work" / "notes.txt").write_text("NOTES-CONTENT-77\n")
    fake_provider.script(Reply(text="shipped it"), Reply(text="plain answer"))
    repl = spawn_repl()
    repl.send("/ship v1.2 'the team'")
    repl.expect("Model claude-sonnet-5-5 -> other-model")  # the switch, with its cost notice
    out = repl.expect("shipped it")
    assert "Run `" not in out  # allowed-tools: the inline-code check asked nothing
    repl.expect("Model other-model -> claude-sonnet-5-5")  # and back after the one message
    repl.prompt()
    request = fake_provider.requests[-1]
    assert request.model == "other-model"
    text = _user_text(request.body)
    assert text.startswith("Release v1.2 for the team. Notes: @notes.txt"), text
    assert "42 v1.2" in text and "!`" not in text, text  # the output in place of the command
    assert "NOTES-CONTENT-77" in text, text  # @notes.txt attached
    repl.send("next")
    repl.expect("plain answer")
    assert fake_provider.requests[-1].model == "claude-sonnet-5-5"


def test_a_command_without_the_allowance_asks_before_its_shell_runs(spawn_repl, fake_provider,
                                                                    hermes_home):
    (hermes_home / "commands").mkdir()
    (hermes_home / "commands" / "calc.md").write_text("Result: !`python3 -c 'print(6 * 7)'`\n")
    fake_provider.script(Reply(text="noted"))
    repl = spawn_repl()
    repl.send("/calc")
    repl.expect("Run `python3 -c 'print(6 * 7)'`?")
    repl.send("n")
    repl.expect("noted")
    text = _user_text(fake_provider.requests[-1].body)
    assert text.startswith("Result: ") and "42" not in text, text
