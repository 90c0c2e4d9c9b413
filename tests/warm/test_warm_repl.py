"""The REPL forked from the warm server, in a real pty: a message typed at once is
answered, `!cmd` runs where the terminal is the controlling one (as in a cold start: a
password prompt can open /dev/tty) and `!!cmd`'s output goes with the next message, and
Ctrl-D ends the client with the REPL's exit status."""

from __future__ import annotations

import pexpect
import pytest

from tests.fakes.script import Reply
from tests.helpers import HERMES, Repl, warm_status

pytestmark = pytest.mark.wire


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "cold"])
def test_the_repl_behaves_the_same_forked_or_cold(warm, env, runtime, fake_provider, tmp_path):
    env = env if warm else {**env, "HERMES_WARM": "0"}
    before = warm_status(runtime)["runs"]
    fake_provider.script(Reply(text="typed-ahead answer"), Reply(text="got the output"))
    child = pexpect.spawn(HERMES[0], HERMES[1:], cwd=str(tmp_path), env=env,
                          dimensions=(40, 120), encoding="utf-8", timeout=30)
    try:
        repl = Repl(child)
        child.send("hello at once\r")  # typed before the prompt is drawn
        repl.expect("typed-ahead answer")
        repl.prompt()
        assert warm_status(runtime)["runs"] == before + (1 if warm else 0)

        repl.send("!(: </dev/tty) 2>/dev/null; echo ctty=$?")
        assert "ctty=0" in repl.expect("not sent to the model")
        repl.send("!!echo kept-$((40 + 2))")
        repl.expect("the output goes with your next message")
        repl.prompt()
        repl.send("and now?")
        repl.expect("got the output")
        repl.prompt()
        last = fake_provider.requests[-1].body["messages"][-1]["content"]
        text = last if isinstance(last, str) else "".join(b.get("text", "") for b in last)
        assert text.startswith("I ran `echo kept-$((40 + 2))` (exit code 0):\n```\nkept-42\n```")
        child.sendcontrol("d")
        assert repl.exit_code() == 0
    finally:
        if child.isalive():
            child.terminate(force=True)
    assert warm_status(runtime)["running"] == 0


def test_ctrl_c_from_the_terminal_cancels_a_turn_of_the_forked_repl(env, runtime, fake_provider,
                                                                     tmp_path):
    """The terminal's Ctrl-C reaches the client (the foreground job), which passes it on."""
    fake_provider.script(Reply(text="word " * 600, delay=0.1, chunks=600),
                         Reply(text="back to normal"))
    child = pexpect.spawn(HERMES[0], HERMES[1:], cwd=str(tmp_path), env=env,
                          dimensions=(40, 120), encoding="utf-8", timeout=30)
    try:
        repl = Repl(child)
        repl.prompt()
        repl.send("tell me a long story")
        repl.expect("word word")
        child.sendintr()
        repl.expect("cancelled", timeout=30)
        repl.prompt(timeout=30)
        repl.send("are you there?")
        repl.expect("back to normal")
        repl.prompt()
        assert fake_provider.requests[0].events_sent < 600
        child.sendcontrol("d")
        assert repl.exit_code() == 0
    finally:
        if child.isalive():
            child.terminate(force=True)
