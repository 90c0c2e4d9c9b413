"""The notice for an untrusted (or changed) project names the folders its settings are in
(after /resume it said `.hermes` when the files were in `.claude/commands`)."""

from __future__ import annotations

from frontend.project import decide


def test_the_notice_names_claude_commands_when_that_is_where_the_files_are(tmp_path):
    root, home = tmp_path / "repo", tmp_path / "home"
    (root / ".claude" / "commands").mkdir(parents=True)
    (root / ".claude" / "commands" / "review.md").write_text("Review it.\n")
    home.mkdir()
    warnings: list[str] = []
    assert decide(home, root, None, warnings) is None  # as /resume builds it: no one asked
    assert len(warnings) == 1 and str(root / ".claude" / "commands") in warnings[0], warnings
    assert ".hermes" not in warnings[0], warnings
    (root / ".hermes").mkdir()
    (root / ".hermes" / "config.yaml").write_text("permissions: {deny: ['terminal(rm*)']}\n")
    both: list[str] = []
    decide(home, root, None, both)
    assert f"{root / '.hermes'} and {root / '.claude' / 'commands'}" in both[0], both
