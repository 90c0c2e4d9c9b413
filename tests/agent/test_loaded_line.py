"""The start banner says what the session loaded: the context file,
memory entries and preloaded skills with their size in tokens. Fast tier."""

from __future__ import annotations

from agent.tokens import estimate_tokens
from frontend.loaded import loaded_line
from memory.notes import Notes
from tests.fakes.scripted import ScriptedModel
from tests.helpers import scripted_agent


def test_the_banner_line_names_what_was_loaded(hermes_home, tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("Run `make test` before committing.\n" * 20)
    folder = hermes_home / "skills" / "debugging"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: debugging\ndescription: Bisect.\n---\n"
                                     + "Bisect the history.\n" * 30)
    notes = Notes(hermes_home)
    notes.add("memory", "the user prefers pytest -x")
    notes.add("user", "works in UTC")
    agent = scripted_agent(ScriptedModel(), hermes_home, project, skills=("debugging",))
    line = loaded_line(agent)
    context = estimate_tokens("Run `make test` before committing.\n" * 20)
    assert f"context AGENTS.md (~{context:,} tokens)" in line
    assert "memory 1 + 1 user entries (~" in line
    body = agent.skills.get("debugging").body
    assert f"skills debugging (~{estimate_tokens(body):,} tokens)" in line

    bare = scripted_agent(ScriptedModel(), hermes_home, tmp_path)
    assert "no context file" in loaded_line(bare) and "no preloaded skills" in loaded_line(bare)
