"""Chatting in the REPL: answers stream in, the cache is hit, tools show as one line."""

from __future__ import annotations

import re

from tests.fakes import Reply, ToolCall


def test_multi_turn_chat_hits_the_cache(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="first answer"), Reply(text="second answer", chunks=5))
    repl = spawn_repl()
    repl.send("hello")
    repl.expect("first answer")
    repl.prompt()
    repl.send("and again")
    repl.expect("second answer")
    repl.prompt()
    requests = fake_provider.requests
    assert len(requests) == 2
    assert all(r.status == 200 for r in requests)
    assert requests[1].cache_read > 0
    messages = requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]


def test_tool_call_is_one_compact_line(spawn_repl, fake_provider, tmp_path):
    (tmp_path / "work" / "a.txt").write_text("hello from a file\n")
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})]),
                         Reply(text="the file says hello"))
    repl = spawn_repl()
    repl.send("read a.txt")
    line = repl.expect("the file says hello")
    assert re.search(r'⚙ read_file \{"path":"a.txt"\} \d+\.\d\ds ok', line)
    repl.prompt()


def test_alt_enter_and_bracketed_paste_make_one_message(spawn_repl, fake_provider, hermes_home):
    fake_provider.script(Reply(text="got two lines"), Reply(text="got the paste"))
    repl = spawn_repl()
    repl.child.send("line one\x1b\rline two\r")  # Esc-Enter inserts a newline
    repl.expect("got two lines")
    repl.prompt()
    repl.child.send("\x1b[200~pasted a\npasted b\x1b[201~\r")
    repl.expect("got the paste")
    repl.prompt()
    sent = [r.body["messages"][-1]["content"] for r in fake_provider.requests]
    texts = [c if isinstance(c, str) else "".join(p.get("text", "") for p in c) for c in sent]
    assert texts[0].startswith("line one\nline two")
    assert texts[1].startswith("pasted a\npasted b")
    repl.child.sendcontrol("d")
    assert repl.exit_code() == 0
    history = (hermes_home / "repl_history").read_text()
    assert "+line one\n+line two" in history


def test_dangerous_command_asks_and_declining_refuses(spawn_repl, fake_provider):
    command = "git push --force origin main"
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": command})]),
                         Reply(text="understood, not pushing"))
    repl = spawn_repl()
    repl.send("push it")
    repl.expect(f"Run `{command}`? (force-push")
    repl.expect("[y]es / [n]o / [a]lways this session:")
    repl.send("n")
    after = repl.expect("understood, not pushing")
    assert re.search(r"⚙ terminal .*s failed", after)
    repl.prompt()
    tool_result = fake_provider.requests[1].body["messages"][-1]["content"][0]
    assert "declined" in str(tool_result)
