"""Ctrl-C, Ctrl-D and /exit in the REPL."""

from __future__ import annotations

import re

import pytest

from tests.fakes import Reply

LONG = "word " * 600


@pytest.mark.fresh_interpreter  # Ctrl-C from the terminal straight to hermes, no trampoline
def test_ctrl_c_cancels_a_streaming_reply_and_the_session_goes_on(spawn_repl, fake_provider):
    # 600 chunks x 0.1 s: a REPL that waited for the stream's end would miss the deadlines.
    fake_provider.script(Reply(text=LONG, delay=0.1, chunks=600), Reply(text="back to normal"))
    repl = spawn_repl()
    repl.send("tell me a long story")
    repl.expect("word word")
    repl.child.sendintr()
    repl.expect("cancelled", timeout=30)
    repl.prompt(timeout=30)
    repl.send("are you there?")
    repl.expect("back to normal")
    repl.prompt()
    assert len(fake_provider.requests) == 2
    last = fake_provider.last
    assert last.status == 200 and last.error is None
    roles = [m["role"] for m in last.body["messages"]]
    assert roles == ["user", "assistant", "user"]
    # The cancelled stream was cut: the fake did not get to send all of it.
    assert fake_provider.requests[0].events_sent < 600


def test_ctrl_c_twice_on_an_empty_prompt_quits(spawn_repl, hermes_home):
    repl = spawn_repl()
    repl.child.sendintr()
    repl.expect("press Ctrl-C again or Ctrl-D to exit")
    repl.prompt()
    repl.child.sendintr()
    repl.expect("the empty session was not kept")
    assert repl.exit_code() == 0
    from memory.store import SessionStore

    assert SessionStore(hermes_home / "state.db").list_sessions() == []


def test_ctrl_c_on_a_typed_line_only_clears_it(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="fresh line answered"))
    repl = spawn_repl()
    repl.child.send("half typed")
    repl.expect("half typed")
    repl.child.sendintr()
    repl.send("fresh")
    before = repl.expect("fresh line answered")
    assert "press Ctrl-C again" not in before
    assert fake_provider.last.body["messages"][-1]["content"][0]["text"].startswith("fresh")


def test_ctrl_d_exits_zero_with_a_summary(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="one answer"))
    repl = spawn_repl()
    repl.send("hi")
    repl.expect("one answer")
    repl.prompt()
    repl.child.sendcontrol("d")
    summary = repl.expect("resume with: hermes --resume ")
    assert re.search(r"session \S+ · 1 turn · cost \$[\d.]+ · hit rate [\d.]+%", summary)
    assert repl.exit_code() == 0


def test_exit_prints_the_resume_command(spawn_repl, hermes_home):
    repl = spawn_repl()
    repl.send("hello")
    repl.expect("ok")
    repl.prompt()
    repl.send("/exit")
    repl.expect("resume with: hermes --resume ")
    session_id = repl.expect("\n").strip()
    assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", session_id)
    assert repl.exit_code() == 0
