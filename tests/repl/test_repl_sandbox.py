"""The escalation prompt in a real pty: a command asking to run outside the sandbox is
put to the person; "n" keeps it in (nothing written), "y" lets that one command out.
The child's temp dir is tmp_path/tmp, so tmp_path/outside is outside every writable root."""

from __future__ import annotations

from pathlib import Path

import pexpect
import pytest

from agent.sandbox.backend import backend
from tests.fakes import Reply, ToolCall
from tests.helpers import HERMES, Repl, anthropic_env

pytestmark = pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")


def test_escalation_is_asked_and_only_a_yes_lets_it_out(hermes_home: Path, fake_provider, tmp_path: Path) -> None:
    work, tmp, outside = tmp_path / "work", tmp_path / "tmp", tmp_path / "outside"
    for d in (work, tmp, outside):
        d.mkdir()
    no = f"echo no > {outside}/no.txt"
    yes = f"echo yes > {outside}/yes.txt"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("terminal", {"command": no, "outside_sandbox": True})]),
        Reply(text="kept inside"),
        Reply(tool_calls=[ToolCall("terminal", {"command": yes, "outside_sandbox": True})]),
        Reply(text="ran outside"),
    )
    env = anthropic_env(hermes_home, fake_provider)
    env["TMPDIR"] = str(tmp)
    child = pexpect.spawn(HERMES[0], [*HERMES[1:]], cwd=str(work), env=env, dimensions=(40, 160),
                          encoding="utf-8", timeout=15)
    try:
        repl = Repl(child)
        repl.prompt()
        repl.send("write it")
        repl.expect("run OUTSIDE the sandbox")
        repl.expect("[y]es / [n]o / [a]lways this session:")
        repl.send("n")
        repl.expect("kept inside")
        repl.prompt()
        assert not (outside / "no.txt").exists()
        repl.send("now really")
        repl.expect("run OUTSIDE the sandbox")
        repl.expect("[y]es / [n]o / [a]lways this session:")
        repl.send("y")
        repl.expect("ran outside")
        repl.prompt()
        assert (outside / "yes.txt").read_text() == "yes\n"
    finally:
        child.terminate(force=True)
