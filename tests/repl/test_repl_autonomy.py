"""/goal and /loop in the REPL against the fake provider: a goal stops at its check or at
--max-turns, a loop runs its prompt every interval until /loop stop, and every
continuation and iteration reads what the previous request wrote (the tools and system
bytes never change)."""

from __future__ import annotations

from tests.fakes import Reply, ToolCall


def _same_prefix_and_reads(requests) -> None:
    """Tools and system identical in every request; each request after the first reads
    >= 0.9 of the previous one's prompt (all of it is a prefix of this one: history is
    append-only, so that is what the cache could give)."""
    calls = [r for r in requests if r.status == 200]
    assert len({str(r.body.get("tools")) for r in calls}) == 1
    assert len({str([b.get("text") for b in r.body["system"]]) for r in calls}) == 1
    for before, after in zip(calls, calls[1:], strict=False):
        assert after.cache_read >= 0.9 * before.prompt_tokens, (before.prompt_tokens,
                                                                 after.cache_read)


def test_a_goal_whose_check_never_passes_stops_at_max_turns(spawn_repl, fake_provider):
    fake_provider.script(*[Reply(text=f"worked on it, step {n}") for n in range(1, 4)])
    repl = spawn_repl()
    repl.send('/goal --check "test -f never.txt" --max-turns 3 make never.txt appear')
    repl.expect("goal stopped after 3 turns: reached --max-turns", timeout=90)
    repl.prompt()
    assert len(fake_provider.requests) == 3
    last = fake_provider.requests[-1].body["messages"]
    texts = [str(m["content"]) for m in last if m["role"] == "user"]
    assert "Continue with the goal (turn 3 of at most 3)" in texts[-1]
    assert "`test -f never.txt` failed" in texts[-1] and "exit code 1" in texts[-1]
    _same_prefix_and_reads(fake_provider.requests)
    repl.send("/goal")
    repl.expect("turn 3 of 3")


def test_a_goal_whose_check_passes_after_the_first_turn_stops_after_one(spawn_repl,
                                                                       fake_provider):
    fake_provider.script(
        Reply(text="writing it", tool_calls=[ToolCall("write_file", {"path": "done.txt",
                                                                     "content": "ok\n"})]),
        Reply(text="done.txt is written"))
    repl = spawn_repl()
    repl.send('/goal --check "test -f done.txt" --max-turns 5 write done.txt')
    repl.expect("goal stopped after 1 turn: the goal is met", timeout=90)
    repl.prompt()
    assert len(fake_provider.requests) == 2  # one turn: the tool call and the answer
    _same_prefix_and_reads(fake_provider.requests)


def test_a_goal_without_check_asks_and_reads_the_answer(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="first pass"), Reply(text="NOT DONE\nthe tests fail"),
                         Reply(text="second pass"), Reply(text="DONE\nall green"))
    repl = spawn_repl()
    repl.send("/goal --max-turns 4 make the tests pass")
    repl.expect("goal stopped after 2 turns: the goal is met", timeout=90)
    repl.prompt()
    requests = fake_provider.requests
    assert len(requests) == 4
    third = [m for m in requests[2].body["messages"] if m["role"] == "user"][-1]
    assert "Not done yet: the tests fail" in str(third["content"])
    _same_prefix_and_reads(requests)


def test_a_loop_runs_every_interval_until_loop_stop(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="hello"), Reply(text="tick 1"), Reply(text="tick 2"))
    repl = spawn_repl()
    repl.send("hello")
    repl.expect("hello")
    repl.prompt()
    repl.send("/loop 1s report the time")
    repl.expect("loop: every 1s")
    repl.expect("tick 1", timeout=60)
    repl.expect("tick 2", timeout=60)
    repl.send("/loop stop")
    repl.expect("loop stopped after")
    repl.prompt()
    count = len(fake_provider.requests)
    assert count == 3  # hello and two iterations
    fake_provider.script(Reply(text="after the loop"))
    repl.send("a message of mine")
    repl.expect("after the loop", timeout=60)
    repl.prompt()
    # the loop ran no more: the only request since /loop stop is the typed message
    assert len(fake_provider.requests) == count + 1
    loop_turns = [r for r in fake_provider.requests
                  if "report the time" in str(r.body["messages"][-1]["content"])]
    assert len(loop_turns) == count - 1 >= 2
    _same_prefix_and_reads(fake_provider.requests)


def test_loop_auto_says_the_interval_it_chose_and_why(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="hello"))
    repl = spawn_repl()
    repl.send("hello")
    repl.expect("hello")
    repl.prompt()
    repl.send("/loop auto check the build")
    said = " ".join(repl.expect(". /loop stop ends it").split())
    assert "loop: every 4m: the cache entry lives 5m" in said and "reads the" in said
    repl.send("/loop")
    repl.expect("loop every 4m: check the build")
    repl.send("/loop stop")
    repl.expect("loop stopped after 0 iterations")
    repl.prompt()
    assert len(fake_provider.requests) == 1


def test_bg_runs_a_fork_that_reads_this_sessions_cache(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="the first answer"), Reply(text="background result 7"))
    repl = spawn_repl()
    repl.send("remember the number seven")
    repl.expect("the first answer")
    repl.prompt()
    repl.send("/bg say the number")
    repl.expect("background run ")
    repl.expect("started from this conversation")
    repl.expect("done (cost", timeout=90)  # the REPL says so when it ends
    first, forked = fake_provider.requests
    # the fork sent the REPL session's bytes: it read everything the first request wrote
    assert [b["text"] for b in forked.body["system"]] == [b["text"] for b in first.body["system"]]
    assert len({str([{k: v for k, v in t.items() if k != "cache_control"} for t in r.body["tools"]])
                for r in (first, forked)}) == 1
    assert forked.cache_read >= 0.9 * first.prompt_tokens
    assert [m["role"] for m in forked.body["messages"]] == ["user", "assistant", "user"]


def test_ctrl_c_ends_a_goal_and_says_so(spawn_repl, fake_provider):
    fake_provider.script(Reply(text="working " + "slowly " * 40, delay=0.5, chunks=40))
    repl = spawn_repl()
    repl.send('/goal --check "test -f never.txt" --max-turns 5 never ends')
    repl.expect("working")
    repl.child.sendintr()
    repl.expect("goal stopped after 1 turn: stopped by Ctrl-C", timeout=60)
    repl.prompt()
    assert len(fake_provider.requests) == 1  # no check ran, no second turn
