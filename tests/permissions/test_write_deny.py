"""A deny on writing a path holds for every tool that writes it (a
`write_file(PATH)` deny did not stop `patch`). Fast tier: the registry's dispatch."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from agent.permissions.rules import parse
from agent.tools.registry import discover

DENIES = [{"deny": ["write_file(./secrets/**)"]}, {"deny": ["patch(./secrets/**)"]},
          {"deny": ["Edit(./secrets/**)"]}]


@pytest.fixture
def secrets(ctx):
    (ctx.cwd / "secrets").mkdir()
    (ctx.cwd / "secrets" / "k.txt").write_text("KEY=old\n")
    (ctx.cwd / "notes.txt").write_text("old\n")
    os.symlink(ctx.cwd / "secrets" / "k.txt", ctx.cwd / "link.txt")
    return ctx


@pytest.mark.parametrize("raw", DENIES)
def test_every_writing_tool_refuses_the_denied_path_under_yolo(call, secrets, raw):
    c = replace(secrets, permissions=parse(raw, "config.yaml"), yolo=True)
    for tool, args in [("write_file", {"path": "secrets/k.txt", "content": "KEY=new\n"}),
                       ("patch", {"path": "secrets/k.txt", "old_string": "old", "new_string": "new"}),
                       ("write_file", {"path": str(secrets.cwd / "secrets" / "new.txt"), "content": "x"}),
                       ("patch", {"path": "link.txt", "old_string": "old", "new_string": "new"})]:
        result = call(tool, c, **args)
        assert not result.ok and "deny" in result.content and "config.yaml" in result.content, (tool, args)
    assert (secrets.cwd / "secrets" / "k.txt").read_text() == "KEY=old\n"
    assert not (secrets.cwd / "secrets" / "new.txt").exists()
    assert call("patch", c, path="notes.txt", old_string="old", new_string="new").ok  # elsewhere: fine
    assert call("write_file", c, path="other.txt", content="x").ok


def test_a_bare_write_deny_refuses_every_writer(call, secrets):
    c = replace(secrets, permissions=parse({"deny": ["write_file"]}, "config.yaml"), yolo=True)
    assert not call("patch", c, path="notes.txt", old_string="old", new_string="new").ok
    assert (secrets.cwd / "notes.txt").read_text() == "old\n"


def test_the_write_itself_checks_the_rule(secrets):
    from agent.errors import ToolError  # the policy's own error
    from agent.sandbox.file_policy import guard_write
    c = replace(secrets, permissions=parse({"deny": ["write_file(./secrets/**)"]}, "config.yaml"))
    with pytest.raises(ToolError, match="deny `write_file"):
        guard_write(c, secrets.cwd / "link.txt")  # a link into the denied folder


def test_every_tool_that_writes_a_path_declares_it():
    for tool in discover():
        if not tool.read_only and "path" in tool.parameters.get("properties", {}):
            assert tool.writes == ("path",), tool.name
