"""Ctrl-Z at the REPL's prompt, in a shell with job control (a real pty): the job stops,
the shell takes the terminal back, `fg` resumes the REPL where it was (tests/repl/ for a
cold start, tests/warm/ for a REPL forked from the warm server)."""

from __future__ import annotations

from pathlib import Path

import pexpect

from tests.fakes.script import Reply
from tests.helpers import HERMES, Repl


def suspend_and_resume(env: dict[str, str], cwd: Path, fake) -> None:
    """Ctrl-Z used to type `^Z` into the line and send it to the model as a paid message."""
    fake.script(Reply(text="answered after fg"))
    shell = pexpect.spawn("bash", ["--norc", "--noprofile", "-i"], cwd=str(cwd),
                          env={**env, "PS1": "SH$ "}, dimensions=(40, 200), encoding="utf-8",
                          timeout=30)
    try:
        repl = Repl(shell)
        repl.expect("SH$ ")
        shell.send(" ".join(HERMES) + "\r")
        repl.prompt()
        shell.sendcontrol("z")
        repl.expect("Stopped")
        repl.expect("SH$ ")
        shell.send("echo shell-has-the-terminal\r")
        repl.expect("shell-has-the-terminal")
        repl.expect("SH$ ")
        shell.send("fg\r")
        repl.prompt()
        repl.send("hello again")
        repl.expect("answered after fg")
        repl.prompt()
        assert len(fake.requests) == 1
        sent = fake.requests[0].body["messages"][-1]["content"]
        text = sent if isinstance(sent, str) else "".join(b.get("text", "") for b in sent)
        assert text == "hello again"  # no ^Z in it
        shell.sendcontrol("d")
        repl.expect("SH$ ")
        shell.send("echo status=$?\r")
        repl.expect("status=0")
    finally:
        shell.terminate(force=True)
