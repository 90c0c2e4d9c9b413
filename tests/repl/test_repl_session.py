"""History search, the toolbar, /new and /resume, and the read-only commands."""

from __future__ import annotations

import re

from tests.fakes import Reply


def test_ctrl_r_finds_an_earlier_line_and_toolbar_shows_usage(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="first reply"), Reply(text="second reply"))
    repl = spawn_repl()
    repl.send("a question about caching")
    repl.expect("first reply")
    toolbar = repl.expect("cost $")
    assert re.search(r"claude-sonnet-5-5 \| ctx [\d.]+k?/1M \([\d.]+%\) \| hit [\d.]+% \|", toolbar)
    repl.child.sendcontrol("r")
    repl.child.send("about cach")
    repl.expect("a question about caching")
    repl.child.send("\r")  # accept the search result
    repl.child.send("\r")  # and submit it
    repl.expect("second reply")
    assert fake_provider.last.body["messages"][-1]["content"][0]["text"].startswith(
        "a question about caching")


def _message_then_new(repl, answer: str) -> tuple[str, str]:
    """One exchange, then /new: (the new session's id, the first one's)."""
    repl.send("first session message")
    repl.expect(answer)
    repl.prompt()
    repl.send("/new")
    notice = repl.expect("The new prompt is written to the cache")
    new, old = re.search(r"New session (\S+) \(previous: (\S+),", notice).groups()
    repl.prompt()
    return new, old


def test_new_then_resume_the_previous_session(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="answer in the first session"),
                         Reply(text="answer after resuming"))
    repl = spawn_repl()
    new, old = _message_then_new(repl, "answer in the first session")
    # A prefix of the old id that the new one does not share (both may start in the
    # same second: ids are the time plus random hex).
    prefix = next(old[:n] for n in range(17, len(old) + 1) if not new.startswith(old[:n]))
    repl.send(f"/resume {prefix}")
    repl.expect(f"resumed session {old} (2 messages)")
    repl.expect("you: first session message")
    repl.prompt()
    repl.send("continue")
    repl.expect("answer after resuming")
    roles = [m["role"] for m in fake_provider.last.body["messages"]]
    assert roles == ["user", "assistant", "user"]
    assert fake_provider.last.cache_read > 0


def test_read_only_commands(spawn_repl, hermes_home):
    (hermes_home / "memories").mkdir()
    (hermes_home / "memories" / "MEMORY.md").write_text("the user likes tea\n")
    repl = spawn_repl()
    for command, marker in (("/tools", "the tool set is fixed"),
                            ("/skills", "skills · /skills NAME shows one"),
                            ("/memory", "reach the prompt next session"),
                            ("/prompt", "cached prefix (tools + system)"),
                            ("/personality", "none"),
                            ("/title", "title: (none yet)")):
        repl.send(command)
        out = repl.expect(marker)
        assert "Traceback" not in out and "error:" not in out
        if command == "/tools":
            assert "read_file" in out and "terminal" in out
        if command == "/memory":
            assert "the user likes tea" in out and "USER.md (0 entries)" in out
            assert "MEMORY.md (1 entry)" in out
        if command == "/prompt":
            assert "stable" in out and "Environment" in out
        repl.prompt()


def test_continue_shows_what_was_loaded_and_where_it_stopped(spawn_repl, fake_provider):
    """`hermes -c` resumes with the stored prompt (said so) and a recap of the last
    exchange, like /resume does."""
    fake_provider.script(Reply(text="the first answer"), Reply(text="more"))
    repl = spawn_repl()
    repl.send("remember this question")
    repl.expect("the first answer")
    repl.prompt()
    repl.send("/exit")
    assert repl.exit_code() == 0
    again = spawn_repl("-c", wait=False)
    again.expect("loaded: the stored prompt as it was")
    again.expect("you: remember this question")
    again.expect("hermes: the first answer")
    again.prompt()


def test_resume_without_an_id_picks_from_a_numbered_list(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="answer one"), Reply(text="answer two"),
                         Reply(text="answer three"))
    repl = spawn_repl()
    new, old = _message_then_new(repl, "answer one")
    repl.send("second session message")
    repl.expect("answer two")
    repl.prompt()
    repl.send("/resume")
    listing = repl.expect("Resume which session? [1-2")
    assert re.search(r"^\s*2\s+" + re.escape(old), listing, re.MULTILINE), listing
    repl.send("2")
    repl.expect(f"resumed session {old} (2 messages)")
    repl.prompt()
    repl.child.sendcontrol("d")
    repl.child.expect("hermes --resume")

    again = spawn_repl("--resume", wait=False)  # bare: the picker before the REPL starts
    listing = again.expect("Resume which session? [1-2")
    number = re.search(r"^\s*(\d)\s+" + re.escape(new), listing, re.MULTILINE).group(1)
    again.send(number)
    again.expect(f"resumed {new} (2 messages)")
    again.prompt()
    again.send("go on")
    again.expect("answer three")
    assert len(fake_provider.last.body["messages"]) == 3  # the second session's history
