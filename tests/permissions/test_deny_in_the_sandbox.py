"""A file deny rule holds for the terminal too ("a deny on a file denies every
tool that writes - or, for read rules, reads - it"): the sandbox hides what a read deny
names and binds read-only what a write deny names (agent/permissions/enforce.py). Wire
tier: the agent's terminal tool in the real sandbox, the model scripted by the fake."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.permissions.enforce import literal_head
from agent.permissions.rules import parse
from agent.sandbox.backend import backend
from tests.fakes import Reply, ToolCall
from tests.helpers import make_agent, run

pytestmark = [pytest.mark.wire,
              pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]


def _project(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "secrets").mkdir(parents=True)
    (work / "secrets" / "key.txt").write_text("CANARY-KEY\n")
    (work / "config").mkdir()
    (work / "config" / "prod.yaml").write_text("level: safe\n")
    return work


def test_the_terminal_can_neither_read_nor_write_what_the_rules_deny(fake_provider, hermes_home,
                                                                    tmp_path):
    work = _project(tmp_path)
    rules = parse({"deny": ["read_file(./secrets/**)", "write_file(./config/**)"]}, "config.yaml")
    line = ("cat secrets/key.txt > leaked.txt; echo 'level: open' > config/prod.yaml; "
            "touch config/new.yaml; echo ran > ran.txt")
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": line})]),
                         Reply(text="done"))
    agent = make_agent(fake_provider, hermes_home, work, permissions=rules, yolo=True)
    try:
        run(agent, "go")
    finally:
        agent.close()
    assert (work / "ran.txt").read_text() == "ran\n"  # the command ran
    assert "CANARY-KEY" not in (work / "leaked.txt").read_text()
    assert (work / "config" / "prod.yaml").read_text() == "level: safe\n"
    assert not (work / "config" / "new.yaml").exists()


@pytest.mark.parametrize(("pattern", "head"), [
    ("./secrets/**", "secrets"), ("config/*.yaml", "config"), (".env", ".env"),
    ("**/*.pem", None), ("*", None), ("./", None)])
def test_a_pattern_is_enforced_from_its_literal_head(tmp_path, pattern, head):
    found = literal_head(pattern, tmp_path)
    assert found == (str(tmp_path.resolve() / head) if head else None)
