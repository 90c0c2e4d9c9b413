"""Regressions found by using the REPL like a demanding user: bad input, errors, odd
terminals. Each test names the bug it guards against."""

from __future__ import annotations

import re

from tests.fakes import Error, Reply, ToolCall


def test_a_lone_slash_is_an_error_not_a_message(spawn_repl, fake_provider):
    """`/` used to be sent to the model; `/ foo` said "unknown command / -"."""
    repl = spawn_repl()
    for line in ("/", "/ foo"):
        repl.send(line)
        repl.expect("error: no command name after /")
        repl.expect("hint: /help lists the commands; start with // to send a message")
        repl.prompt()
    repl.send("/foo")
    out = repl.expect("hint: /help lists the commands")
    assert "error: unknown command /foo" in out and "did you mean" not in out  # not "/tools"
    repl.prompt()
    repl.send("/model x y")
    repl.expect("error: usage: /model [name]")
    repl.expect("hint: /help model explains it")
    repl.prompt()
    assert fake_provider.requests == []


def test_deliberate_cache_breaks_are_announced_once(spawn_repl, fake_provider):
    """/model and /personality printed the re-send estimate twice; /compress on a short
    session warned of a cache rewrite and then did nothing."""
    repl = spawn_repl()
    repl.send("/model other-model")
    out = repl.expect("one deliberate miss.")
    repl.prompt()
    repl.send("/personality skeptic")
    out += repl.expect("Personality -> skeptic")
    out += repl.prompt()
    assert out.count("re-sends ~") == 2  # one per command
    for line in ("/compress", "/compress --preview"):
        repl.send(line)
        before = repl.expect("Nothing worth compressing yet")
        assert "rewrites the history" not in before
        repl.prompt()
    assert fake_provider.requests == []


def test_usage_and_resume_on_a_fresh_session(spawn_repl):
    """/usage before any call printed a table of zeros and "unknown"s; /resume with no
    other session listed only the current one; the toolbar said "ctx unknown"."""
    repl = spawn_repl()
    repl.send("/usage")
    out = repl.expect("the figures start with the first message (claude-sonnet-5-5")
    repl.prompt()
    assert "cache write" not in out
    repl.send("/resume")
    repl.expect("no other session to resume yet")
    repl.prompt()
    repl.send("/resume badid")
    repl.expect("error: No session matches 'badid'")
    repl.expect("hint: ")
    repl.prompt()
    toolbar = repl.expect("| cost -")
    assert "ctx - | hit -" in toolbar and "unknown" not in toolbar
    repl.send("/sessions")
    out = repl.expect("resume one with /resume")
    assert re.search(r"\*\s+\S+\s+.*\s0\s+-", out), out  # no messages: cost "-", not "unknown"


def test_a_provider_error_has_a_hint_and_retry_works(spawn_repl, fake_provider):
    """A provider error after the retries printed no hint."""
    overloaded = Error(529, retry_after=0)
    fake_provider.script(overloaded, overloaded, overloaded, overloaded,
                         Reply(text="finally an answer"))
    repl = spawn_repl()
    repl.send("are you there")
    out = repl.expect("error: Anthropic API error 529")
    assert out.count("retrying") == 3
    repl.expect("hint: it still failed after 4 tries")
    repl.prompt()
    repl.send("/retry")
    repl.expect("finally an answer")
    repl.prompt()
    messages = fake_provider.last.body["messages"]
    assert [m["role"] for m in messages] == ["user"]
    assert "Traceback" not in repl.rest()


def test_ctrl_c_during_a_tool_says_it_waits_for_the_tool(spawn_repl, fake_provider):
    """The first Ctrl-C during a tool said "cancelled" while the spinner kept spinning."""
    # long enough that a starved machine cannot finish it before the Ctrl-C lands (the
    # cancel kills it at once)
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": "sleep 20"})]),
                         Reply(text="should not be asked for"))
    repl = spawn_repl()
    repl.send("nap")
    repl.expect('terminal {"command":"sleep 20"}')
    repl.child.sendintr()
    repl.expect("cancelled")
    repl.expect("stopping… (waiting for the running tool to return)", timeout=30)
    repl.prompt(timeout=30)
    assert len(fake_provider.requests) == 1


def test_a_declined_command_says_why_it_failed(spawn_repl, fake_provider):
    """A failed tool line gave no reason."""
    harmless = "curl -s http://127.0.0.1:9/ | sh"  # flagged, and does nothing if it ran
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": harmless})]),
                         Reply(text="fine, not deleting"))
    repl = spawn_repl()
    repl.send("clean up")
    repl.expect("[y]es / [n]o / [a]lways this session:")
    repl.send("n")
    line = repl.expect("fine, not deleting")
    assert re.search(r"⚙ terminal .* failed: .*declined", line), line


def test_usr1_prints_every_threads_stack_and_the_repl_goes_on(spawn_repl, fake_provider):
    """`kill -USR1 PID` is how a user (or a failing test) reports a hang: every thread's
    stack on stderr, and hermes carries on."""
    fake_provider.script(Reply(text="still here"))
    repl = spawn_repl()
    dump = repl._stacks()
    assert "Current thread 0x" in dump and "File " in dump, dump  # faulthandler's dump
    repl.send("hello")
    repl.expect("still here")
    repl.prompt()
