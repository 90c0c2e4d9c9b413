"""/plan and custom commands over HTTP sessions (the shared command path), with the real
`openai` client; a mode switch changes no tools or system byte."""

from __future__ import annotations

import json

from agent.permissions.plan import NOTE_ON
from tests.fakes import Reply, ToolCall
from tests.helpers import ask


def _user_text(body) -> str:
    message = body["messages"][-1]
    return "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")


def test_plan_mode_and_a_custom_command_over_http(harness):
    (harness.home / "commands").mkdir()
    (harness.home / "commands" / "summarise.md").write_text(
        "---\ndescription: One-line summary\n---\nSummarise $ARGUMENTS in one line.\n")
    (harness.home / "commands" / "status.md").write_text("State: !`git status` $1\n")
    server = harness.start()
    client = harness.client(server)
    reply = ask(client, "s1", "/plan on").choices[0].message.content
    assert "plan mode ON" in reply and harness.fake.requests == []
    harness.fake.script(Reply(tool_calls=[ToolCall("write_file", {"path": "x.txt", "content": "x"})]),
                        Reply(text="planned"))
    assert ask(client, "s1", "write x").choices[0].message.content == "planned"
    last = harness.fake.requests[-1].body
    assert "plan mode is on" in json.dumps(last["messages"][-1])
    assert NOTE_ON.strip() in _user_text(harness.fake.requests[-2].body)
    harness.fake.script(Reply(text="one line"))
    assert ask(client, "s1", "/summarise the README").choices[0].message.content == "one line"
    assert _user_text(harness.fake.requests[-1].body).startswith("Summarise the README in one line.")
    assert "Unknown command /nosuch" in ask(client, "s1", "/nosuch").choices[0].message.content
    calls = len(harness.fake.requests)  # a shell command runs in the terminal REPL only
    refused = ask(client, "s1", "/status now").choices[0].message.content
    assert "/status uses !`cmd`, which only the terminal REPL runs" in refused, refused
    assert len(harness.fake.requests) == calls
    bodies = [r.body for r in harness.fake.requests]
    assert len({json.dumps(b["tools"], sort_keys=True) for b in bodies}) == 1
    assert len({"".join(s["text"] for s in b["system"]) for b in bodies}) == 1
