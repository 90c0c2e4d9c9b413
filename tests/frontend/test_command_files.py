"""Claude Code's command-file format, parsed and expanded (fast tier)."""

from __future__ import annotations

from frontend.custom_commands import fill_outputs, load, shell_commands

FILE = """---
description: Fix an issue
argument-hint: [issue] [priority]
model: claude-opus-5
allowed-tools: Bash(git add:*), Bash(git status:*), Read
---
Fix issue #$1 with priority $2 ($ARGUMENTS). Context: !`git log -n 3 -- $1` and !`git status`
"""


def _command(tmp_path, text=FILE, name="fix"):
    (tmp_path / "commands").mkdir(exist_ok=True)
    (tmp_path / "commands" / f"{name}.md").write_text(text)
    warnings: list[str] = []
    found = load(tmp_path, None, warnings).get(name)
    assert found is not None and not warnings, warnings
    return found


def test_front_matter_of_claude_code(tmp_path):
    command = _command(tmp_path)
    assert command.hint == "[issue] [priority]"
    assert command.model == "claude-opus-5"
    assert command.allowed_tools == ("Bash(git add:*)", "Bash(git status:*)", "Read")


def test_positional_and_all_arguments_everywhere(tmp_path):
    text = _command(tmp_path).expand("123 'very high'")
    assert text.startswith("Fix issue #123 with priority very high (123 'very high').")
    assert shell_commands(text) == ("git log -n 3 -- 123", "git status")


def test_outputs_fill_the_commands_in_order_and_nothing_else(tmp_path):
    text = _command(tmp_path).expand("7 low") + "\n<file>keep !`this` as is</file>"
    filled = fill_outputs(text, ["LOG $1", "CLEAN"])
    assert "Context: LOG $1 and CLEAN" in filled  # an output's `$1` is not an argument
    assert filled.endswith("<file>keep !`this` as is</file>")


def test_missing_positionals_are_empty_and_plain_files_get_the_arguments_appended(tmp_path):
    assert _command(tmp_path).expand("9").startswith("Fix issue #9 with priority  (9).")
    plain = _command(tmp_path, "Review the diff.", "review")
    assert plain.expand("carefully") == "Review the diff.\n\ncarefully"
    assert plain.expand("") == "Review the diff."
