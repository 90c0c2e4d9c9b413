"""What a terminal command changes in the workspace is in /diff and /undo puts it back
(agent/tools/term_changes.py). Fast tier: the watch around a "command" that is Python
editing the files; wire tier: a real `terminal` call through the agent."""

from __future__ import annotations

import pytest

from agent.tools import term_changes
from frontend.commands import Handle, diff, undo
from tests.fakes.script import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent


@pytest.fixture
def project(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "app.py").write_text("x = 1\n")
    (cwd / "old.txt").write_text("keep me\n")
    (cwd / ".git").mkdir()
    (cwd / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return cwd


def _agent(hermes_home, project):
    agent = scripted_agent(ScriptedModel(Reply(text="ok")), hermes_home, project)
    run(agent, "hello")  # a turn: the checkpoint turn the changes belong to
    return agent


def test_a_commands_edits_creations_and_deletions_are_undone(hermes_home, project):
    agent = _agent(hermes_home, project)
    watch = term_changes.Watch.begin(agent.tool_ctx)
    assert watch is not None
    (project / "app.py").write_text("x = 2\n")  # what `sed -i`, `rm`, `mkdir -p` would do
    (project / "old.txt").unlink()
    (project / "d" / "e").mkdir(parents=True)
    (project / "d" / "e" / "f.txt").write_text("new\n")
    (project / ".git" / "HEAD").write_text("changed\n")  # .git is not followed
    watch.done()

    shown = dict(agent.checkpoints.session_diff(project))
    assert set(shown) == {"app.py", "old.txt", "d/e/f.txt"}
    assert "-x = 1\n+x = 2" in shown["app.py"] and "-keep me" in shown["old.txt"]

    reply = undo(Handle(agent), "")
    assert "restored" in reply.text and "deleted d/e/f.txt" in reply.text, reply.text
    assert (project / "app.py").read_text() == "x = 1\n"
    assert (project / "old.txt").read_text() == "keep me\n"
    assert not (project / "d").exists()  # the folders the command made, empty again: gone


def test_before_is_what_the_command_found(hermes_home, project):
    """A file the user edited between two commands is restored to the user's version,
    not to what the session first saw."""
    agent = _agent(hermes_home, project)
    first = term_changes.Watch.begin(agent.tool_ctx)
    assert first is not None
    first.done()  # a command that changed nothing: the index is built
    (project / "app.py").write_text("x = 'mine'\n")  # the user, in their editor
    watch = term_changes.Watch.begin(agent.tool_ctx)
    assert watch is not None
    (project / "app.py").write_text("x = 'command'\n")
    watch.done()
    undo(Handle(agent), "")
    assert (project / "app.py").read_text() == "x = 'mine'\n"


def test_a_file_too_large_to_keep_is_named_not_restored(hermes_home, project, monkeypatch):
    monkeypatch.setattr(term_changes, "MAX_KEEP", 10)
    (project / "big.bin").write_bytes(b"0" * 100)
    agent = _agent(hermes_home, project)
    watch = term_changes.Watch.begin(agent.tool_ctx)
    assert watch is not None
    (project / "big.bin").write_bytes(b"1" * 100)
    watch.done()
    assert "too large" in dict(agent.checkpoints.session_diff(project))["big.bin"]
    reply = undo(Handle(agent), "")
    assert "NOT restored big.bin" in reply.text, reply.text


def test_a_huge_workspace_is_not_followed_and_undo_says_so(hermes_home, project, monkeypatch):
    monkeypatch.setattr(term_changes, "MAX_FILES", 3)
    for n in range(5):
        (project / f"f{n}.txt").write_text(str(n))
    agent = _agent(hermes_home, project)
    assert term_changes.Watch.begin(agent.tool_ctx) is None
    reply = undo(Handle(agent), "")
    assert "do not follow what terminal commands change" in reply.text, reply.text


@pytest.mark.wire
def test_terminal_changes_in_diff_and_undo(hermes_home, project):
    command = ("sed -i 's/1/2/' app.py && rm old.txt && mkdir -p d/e && echo new > d/e/f.txt")
    model = ScriptedModel(Reply(tool_calls=[ToolCall("terminal", {"command": command})]),
                          Reply(text="done"))
    agent = scripted_agent(model, hermes_home, project, yolo=True)
    run(agent, "change things with the shell")
    assert (project / "app.py").read_text() == "x = 2\n"
    shown = diff(Handle(agent), "").text
    assert "app.py" in shown and "old.txt" in shown and "d/e/f.txt" in shown, shown
    reply = undo(Handle(agent), "")
    assert "deleted d/e/f.txt" in reply.text, reply.text
    assert (project / "app.py").read_text() == "x = 1\n"
    assert (project / "old.txt").read_text() == "keep me\n"
    assert not (project / "d").exists()
