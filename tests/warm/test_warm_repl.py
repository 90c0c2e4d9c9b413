"""The REPL forked from the warm server, in a real pty: a message typed at once is
answered, `!cmd` runs where the terminal is the controlling one (as in a cold start: a
password prompt can open /dev/tty) and `!!cmd`'s output goes with the next message, and
Ctrl-D ends the client with the REPL's exit status."""

from __future__ import annotations

import pexpect
import pytest

from tests.fakes.script import Reply
from tests.helpers import HERMES, Repl, wait_until, warm_status
from tests.repl.job_control import suspend_and_resume
from tests.warm.procs import command_line, descendants

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


def _state(pid: int) -> str:
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def test_ctrl_z_stops_the_forked_run_with_its_job_and_fg_resumes_both(env, runtime,
                                                                      fake_provider, tmp_path):
    """In a shell with job control, Ctrl-Z stops the client (the job); the forked run,
    in the server's session, is stopped with it and `fg` continues both."""
    fake_provider.script(Reply(text="part " * 30 + "END-OF-ANSWER", delay=0.1, chunks=31))
    shell = pexpect.spawn("bash", ["--norc", "--noprofile", "-i"], cwd=str(tmp_path),
                          env={**env, "PS1": "SH$ "}, dimensions=(40, 200), encoding="utf-8",
                          timeout=30)
    try:
        shell.expect_exact("SH$ ")
        shell.sendline(f"{HERMES[0]} -m hermes_cli -q go")
        server = warm_status(runtime)["pid"]
        wait_until(lambda: fake_provider.requests and fake_provider.requests[-1].events_sent >= 2,
                   timeout=60, what="the answer to stream")
        run = wait_until(lambda: [pid for pid in descendants(server)
                                  if command_line(pid)[1][:2] == ["hermes", "-q"]],
                         what="the forked run")[0]
        shell.sendcontrol("z")
        shell.expect("Stopped")
        wait_until(lambda: _state(run) == "T", what="the run stopped")
        shell.sendline("fg")
        shell.expect_exact("END-OF-ANSWER")
        shell.expect_exact("SH$ ")
        shell.sendline("echo status=$?")
        shell.expect(r"status=(\d+)")
        assert shell.match.group(1) == "0"
    finally:
        shell.terminate(force=True)


def test_ctrl_z_at_the_prompt_of_the_forked_repl_suspends_it_and_fg_resumes_it(
        env, runtime, fake_provider, tmp_path):
    """At the prompt Ctrl-Z is a key the run reads, not a signal the client gets: the run
    asks the client (the shell's job) to stop with it."""
    before = warm_status(runtime)["runs"]
    suspend_and_resume(env, tmp_path, fake_provider)
    assert warm_status(runtime)["runs"] == before + 1
