"""/skills in the REPL shows the skills the agent wrote, when, and that the running
session's index shows them only from the next session (pty, fake provider)."""

from __future__ import annotations

import re

from tests.fakes import Reply, ToolCall

SKILL = "---\nname: flaky-test-triage\ndescription: Find why a test fails sometimes.\n---\n1. Re-run it.\n"


def test_skills_marks_what_the_agent_wrote(spawn_repl, fake_provider, hermes_home):
    fake_provider.script(Reply(tool_calls=[ToolCall("skill_manage", {
        "action": "create", "name": "flaky-test-triage", "content": SKILL})]), Reply(text="saved it"))
    repl = spawn_repl()
    repl.send("save what we did as a skill")
    repl.expect("new skill flaky-test-triage: in the index from your next session")
    repl.expect("saved it")
    repl.prompt()
    repl.send("/skills")
    out = repl.expect("skills · /skills NAME shows one")
    flat = " ".join(out.split())  # the table wraps its last column on a narrow terminal
    assert re.search(r"flaky-test-triage Find why a test fails sometimes\. written by hermes, "
                     r"\d{4}-\d\d-\d\d \d\d:\d\d UTC; in the index from your next session", flat), flat
    assert flat.count("written by hermes") == 1


def test_a_skill_the_user_installed_changes_only_when_the_user_says_yes(spawn_repl, fake_provider,
                                                                      hermes_home):
    folder = hermes_home / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: deploy\ndescription: Ship it.\n---\n1. make ship\n")
    patch = {"action": "patch", "name": "deploy", "old": "make ship", "new": "make ship-safe"}
    fake_provider.script(Reply(tool_calls=[ToolCall("skill_manage", patch)]), Reply(text="left it"),
                         Reply(tool_calls=[ToolCall("skill_manage", patch)]), Reply(text="patched it"))
    repl = spawn_repl()
    repl.send("improve the deploy skill")
    asked = repl.expect("[y]es / [n]o / [a]lways this session:")
    flat = " ".join(asked.split())  # the question wraps on a narrow terminal
    assert "Run `patch skill deploy" in flat and "skill deploy is the user's: hermes did not write it" in flat
    repl.send("n")
    repl.expect("left it")
    assert "1. make ship\n" in (folder / "SKILL.md").read_text()
    repl.prompt()
    repl.send("please do")
    repl.expect("[y]es / [n]o / [a]lways this session:")
    repl.send("y")
    repl.expect("patched it")
    assert "1. make ship-safe\n" in (folder / "SKILL.md").read_text()
