"""/plan in the REPL (the toolbar shows the mode), the project-trust question at start,
and a trusted project's hook and custom command (the real REPL in a pty)."""

from __future__ import annotations

import json

import yaml

from agent.permissions.plan import NOTE_OFF, NOTE_ON
from tests.fakes import Reply


def _user_text(body) -> str:
    message = body["messages"][-1]
    return "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")


def test_plan_shows_in_the_toolbar_and_the_model_hears_it(spawn_repl, fake_provider):
    repl = spawn_repl()
    repl.send("/plan")
    repl.expect("plan mode ON")
    assert repl.expect("PLAN MODE").endswith("| ")  # the toolbar's last field
    fake_provider.script(Reply(text="a plan"))
    repl.send("what would you change?")
    repl.expect("a plan")
    assert NOTE_ON.strip() in _user_text(fake_provider.requests[-1].body)
    repl.prompt()
    repl.send("/plan off")
    repl.expect("plan mode off")
    fake_provider.script(Reply(text="go"))
    repl.send("do it")
    repl.expect("go")
    assert NOTE_OFF.strip() in _user_text(fake_provider.requests[-1].body)
    bodies = [r.body for r in fake_provider.requests]
    assert bodies[0]["tools"] == bodies[1]["tools"]
    assert [b["text"] for b in bodies[0]["system"]] == [b["text"] for b in bodies[1]["system"]]


def test_a_project_is_trusted_once_then_its_hooks_and_commands_apply(spawn_repl, fake_provider,
                                                                       tmp_path, hermes_home):
    work = tmp_path / "work"
    (work / ".hermes" / "commands").mkdir(parents=True)
    (work / ".hermes" / "commands" / "greet.md").write_text(
        "---\ndescription: Greet someone politely\n---\nSay hello to $ARGUMENTS.\n")
    (work / ".hermes" / "config.yaml").write_text(yaml.safe_dump(
        {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo PROJECT-HOOK-CONTEXT"},
                                                   {"command": "true", "sandbox": "host"}]}]}}))
    repl = spawn_repl(wait=False)
    asked = repl.expect("[y/N]")
    assert "2 hooks, 1 command" in asked
    assert "OUTSIDE the sandbox" in asked and "UserPromptSubmit [*] true" in asked, asked
    repl.send("y")
    repl.prompt()
    repl.send("/help")
    repl.expect("/greet")
    repl.expect("Greet someone politely")
    fake_provider.script(Reply(text="Hello, Ada!"))
    repl.send("/greet Ada")
    repl.expect("Hello, Ada!")
    sent = _user_text(fake_provider.requests[-1].body)
    assert sent.startswith("Say hello to Ada.") and "PROJECT-HOOK-CONTEXT" in sent, sent
    repl.prompt()
    repl.send("/permissions")  # what runs outside the sandbox, and where it came from
    repl.expect("hooks (in the tool sandbox unless `sandbox: host`")
    repl.expect("UserPromptSubmit [*] echo PROJECT-HOOK-CONTEXT")
    repl.expect(".hermes/config.yaml)")  # where it came from (wrapped)
    table = json.loads((hermes_home / "trusted_projects.json").read_text())["projects"]
    assert str(work.resolve()) in table
    repl.send("/exit")
    assert repl.exit_code() == 0
    again = spawn_repl(wait=False)  # trusted: not asked again
    assert "[y/N]" not in again.prompt()


def test_shift_tab_enters_plan_mode_and_an_approved_plan_is_implemented(spawn_repl, fake_provider):
    from hermes_cli.repl.plan_mode import IMPLEMENT

    fake_provider.script(Reply(text="A short answer."),
                         Reply(text="The plan:\n1. read the code\n2. change the parser"),
                         Reply(text="implemented"))
    repl = spawn_repl()
    repl.child.send("\x1b[Z")  # Shift-Tab
    repl.expect("plan mode ON")
    repl.send("what is this?")  # no list: no question
    repl.expect("A short answer.")
    repl.prompt()
    repl.send("plan the fix")
    repl.expect("Approve this plan and leave plan mode?")
    repl.send("y")
    repl.expect("plan mode off")
    repl.expect("implemented")
    sent = _user_text(fake_provider.requests[-1].body)
    assert sent.startswith(IMPLEMENT) and "Plan mode is OFF" in sent, sent
    assert "Plan mode is ON" in _user_text(fake_provider.requests[0].body)
