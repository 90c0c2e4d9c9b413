"""Safe edits: every write is checkpointed; /undo puts the files of
the undone turn back (or refuses, changing nothing); /diff shows what the session
changed; no git is involved. Fast tier: a real agent on the scripted model."""

from __future__ import annotations

import pytest

from agent.checkpoints import UndoRefused
from frontend.commands import Handle, diff, undo
from tests.fakes.script import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent


def write(path: str, content: str) -> Reply:
    return Reply(tool_calls=[ToolCall("write_file", {"path": path, "content": content})])


def patch(path: str, old: str, new: str) -> Reply:
    return Reply(tool_calls=[ToolCall("patch", {"path": path, "old_string": old,
                                                "new_string": new})])


@pytest.fixture
def project(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "app.py").write_text("x = 1\n")
    return cwd


def test_undo_puts_back_the_files_of_the_undone_turn(hermes_home, project):
    model = ScriptedModel(patch("app.py", "x = 1", "x = 2"), Reply(text="patched"),
                          write("new.py", "print('hi')\n"), patch("app.py", "x = 2", "x = 3"),
                          Reply(text="wrote"), Reply(text="nothing written"))
    agent = scripted_agent(model, hermes_home, project)
    run(agent, "change x")
    run(agent, "add a file")
    run(agent, "just talk")
    assert (project / "app.py").read_text() == "x = 3\n"

    # the last turn wrote nothing: its undo restores nothing
    reply = undo(Handle(agent), "")
    assert "Files:" not in reply.text and (project / "new.py").exists()
    reply = undo(Handle(agent), "")
    assert "restored app.py" in reply.text and "deleted new.py" in reply.text
    assert (project / "app.py").read_text() == "x = 2\n" and not (project / "new.py").exists()
    reply = undo(Handle(agent), "")
    assert (project / "app.py").read_text() == "x = 1\n"
    assert agent.conversation.messages == []
    assert undo(Handle(agent), "").text == "nothing to undo"
    # the copies live under HERMES_HOME, never in the project
    assert (hermes_home / "checkpoints" / "manifest.db").exists()
    assert sorted(p.name for p in project.iterdir()) == ["app.py"]


def test_undo_removes_the_directories_a_write_created(hermes_home, project):
    """A write into new folders makes them; /undo takes them away again - only those,
    and only when empty (a folder that existed, or holds someone else's file, stays)."""
    (project / "src").mkdir()
    model = ScriptedModel(write("src/pkg/sub/mod.py", "x = 1\n"), write("docs/a.md", "# a\n"),
                          Reply(text="wrote"))
    agent = scripted_agent(model, hermes_home, project)
    run(agent, "add two files")
    assert (project / "src/pkg/sub/mod.py").exists() and (project / "docs/a.md").exists()
    (project / "docs" / "mine.txt").write_text("the user's own file\n")  # not the agent's
    reply = undo(Handle(agent), "")
    assert "deleted docs/a.md, src/pkg/sub/mod.py" in reply.text
    assert sorted(p.name for p in project.iterdir()) == ["app.py", "docs", "src"]
    assert list((project / "src").iterdir()) == []  # pkg/ and pkg/sub/ went; src/ was there
    assert [p.name for p in (project / "docs").iterdir()] == ["mine.txt"]
    assert "/" not in "".join(f for f, _ in agent.checkpoints.session_diff(project))


def test_undo_refuses_when_the_file_changed_since(hermes_home, project):
    model = ScriptedModel(patch("app.py", "x = 1", "x = 2"), Reply(text="patched"))
    agent = scripted_agent(model, hermes_home, project)
    run(agent, "change x")
    (project / "app.py").write_text("x = 2\n# my own edit\n")
    history = list(agent.conversation.messages)
    with pytest.raises(UndoRefused):
        agent.undo()
    reply = undo(Handle(agent), "")
    assert reply.level == "error" and "app.py changed after the agent wrote it" in reply.text
    assert "--force" in reply.text
    assert agent.conversation.messages == history  # nothing changed
    assert (project / "app.py").read_text() == "x = 2\n# my own edit\n"
    assert "restored app.py" in undo(Handle(agent), "--force").text
    assert (project / "app.py").read_text() == "x = 1\n"
    assert undo(Handle(agent), "--bogus").level == "error"


def test_diff_shows_what_the_session_changed(hermes_home, project):
    model = ScriptedModel(patch("app.py", "x = 1", "x = 2"), write("new.py", "y = 1\n"),
                          Reply(text="done"), patch("app.py", "x = 2", "x = 3"), Reply(text="ok"))
    agent = scripted_agent(model, hermes_home, project)
    assert diff(Handle(agent), "").data == []
    run(agent, "change")
    run(agent, "again")
    changes = dict(diff(Handle(agent), "").data)
    assert set(changes) == {"app.py", "new.py"}
    assert "-x = 1\n+x = 3\n" in changes["app.py"]  # from before the session to now
    assert "--- /dev/null" in changes["new.py"] and "+y = 1" in changes["new.py"]
    agent.undo()
    agent.undo()
    assert diff(Handle(agent), "").data == []


def _tree(root) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def test_checkpoints_survive_a_resume_and_never_touch_git(hermes_home, project):
    git = project / ".git"  # a repository's state as files: it must stay byte-identical
    (git / "refs" / "stash").parent.mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    (git / "index").write_bytes(b"DIRC\0\0\0\2")
    before = _tree(git)
    agent = scripted_agent(ScriptedModel(patch("app.py", "x = 1", "x = 9"), Reply(text="ok")),
                           hermes_home, project)
    run(agent, "change x")
    sid = agent.session_id
    agent.close()
    from agent.agent import AIAgent

    again = AIAgent(agent.config, agent.store, session_id=sid, provider=ScriptedModel())
    assert "restored app.py" in again.undo().text
    assert (project / "app.py").read_text() == "x = 1\n"
    assert _tree(git) == before
    assert sorted(p.name for p in project.iterdir()) == [".git", "app.py"]


def test_repl_diff_is_coloured_and_collapsed(hermes_home, project):
    """/diff in the REPL: a header per file with +/- counts, coloured lines, collapsed
    after a few lines (--full shows all). Rendered to a string console (no pty)."""
    from dataclasses import dataclass
    from typing import Any

    from rich.console import Console

    from hermes_cli.render.renderer import Renderer
    from hermes_cli.slash.files import DIFF_FILE_LINES, cmd_diff

    body = "".join(f"line {i}\n" for i in range(40))
    agent = scripted_agent(ScriptedModel(write("big.txt", body), Reply(text="ok")),
                           hermes_home, project)
    run(agent, "write it")
    console = Console(record=True, width=100, force_terminal=True, color_system="truecolor")

    @dataclass
    class Repl:
        agent: Any
        renderer: Any

    cmd_diff(Repl(agent, Renderer(console)), "")
    text = console.export_text(clear=False)
    assert "big.txt  (+40 -0)" in text
    assert "line 0" in text and f"line {DIFF_FILE_LINES}" not in text
    assert "more diff lines (/diff --full shows them all)" in text
    assert "\x1b[32m" in console.export_text(styles=True)  # additions in green
    cmd_diff(Repl(agent, Renderer(console)), "--full")
    assert "line 39" in console.export_text()
