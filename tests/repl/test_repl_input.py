"""The REPL's own input forms, in a real pty: `!cmd` runs a command
yourself, `!!cmd` also sends its output with the next message, `@pa<Tab>` completes and
attaches a file, /init drafts HERMES.md through write_file (so /undo removes it),
/export writes the session to a file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes import Reply, ToolCall


def _user_text(record) -> str:
    last = record.body["messages"][-1]
    content = last["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def test_shell_commands_and_mentions(spawn_repl, fake_provider, tmp_path):
    work = tmp_path / "work"
    (work / "notes.txt").write_text("alpha\nbeta\n")
    repl = spawn_repl()
    repl.send("!echo hello-from-shell")
    assert "hello-from-shell" in repl.expect("not sent to the model")
    assert not fake_provider.requests  # nothing went to the model

    repl.send("!!echo kept-output")
    repl.expect("the output goes with your next message")
    repl.prompt()
    fake_provider.script(Reply(text="seen it"), Reply(text="read it"))
    repl.child.send("what about @no\t")
    repl.child.send(" please\r")
    repl.expect("attached @notes.txt (2 lines, 11 bytes)")
    repl.expect("seen it")
    repl.prompt()
    sent = _user_text(fake_provider.requests[-1])
    assert sent.startswith("I ran `echo kept-output` (exit code 0):\n```\nkept-output\n```")
    assert 'what about @notes.txt please\n\n<file path="notes.txt" lines="2">\nalpha\nbeta\n' \
        in sent

    (work / "blob.bin").write_bytes(b"\0\1\2")
    repl.send("see @blob.bin")
    repl.expect("error: @blob.bin is a binary file")
    repl.prompt()
    assert len(fake_provider.requests) == 1  # refused: nothing sent

    repl.send("\\!important: not a command")  # a message that starts with "!"
    repl.expect("read it")  # the reply scripted above and not used yet
    repl.prompt()
    assert _user_text(fake_provider.requests[-1]) == "!important: not a command"


def test_init_and_export(spawn_repl, fake_provider, tmp_path):
    work = tmp_path / "work"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"path": "HERMES.md",
                                                  "content": "# Project\nRun `make test`.\n"})]),
        Reply(text="drafted HERMES.md"))
    repl = spawn_repl()
    repl.send("/init")
    repl.expect("drafted HERMES.md")
    repl.prompt()
    assert (work / "HERMES.md").read_text() == "# Project\nRun `make test`.\n"
    assert "Draft a HERMES.md" in _user_text(fake_provider.requests[0])

    repl.send("/export json out.json")
    repl.expect("to out.json")
    data = json.loads(Path(work / "out.json").read_text())
    assert data["messages"][0]["content"].startswith("Draft a HERMES.md")
    repl.send("/export json out.json")
    repl.expect("out.json exists already")
    repl.send("/export xml")
    repl.expect("unknown export format 'xml'")
    assert not (work / "xml").exists()

    repl.send("/undo")
    repl.expect("deleted HERMES.md")
    assert not (work / "HERMES.md").exists()
