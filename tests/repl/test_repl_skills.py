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
