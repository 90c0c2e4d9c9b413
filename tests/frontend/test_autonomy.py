"""The autonomy logic (fast tier): /goal and /loop lines, the goal's verdicts and stops,
`/loop auto`'s interval, background runs' state in the store and a session's fork."""

from __future__ import annotations

import pytest

from agent.cache.idle_policy import Rates
from agent.cancel import CancelToken
from agent.cost.budget import Limits
from agent.events import Notice
from agent.usage import Usage
from frontend.autonomy import background
from frontend.autonomy.goal import (
    GoalSpec,
    GoalUsageError,
    check_result,
    parse_goal,
    start,
    verdict,
)
from frontend.autonomy.loop import (
    LoopUsageError,
    choose,
    parse_interval,
    parse_loop,
    per_hour,
    span,
)
from tests.fakes import Reply
from tests.fakes.scripted import Answer, ScriptedModel
from tests.helpers import run, scripted_agent


def test_goal_lines():
    assert parse_goal('--check "pytest -q" --max-turns 3 make the tests pass') == GoalSpec(
        "make the tests pass", "pytest -q", 3)
    assert parse_goal("tidy the README") == GoalSpec("tidy the README", None, 10)
    for line, said in (("--max-turns 0 x", "from 1 to 200"), ("--max-turns ten x", "not 'ten'"),
                       ("--check", "needs a value"), ('--check "a b', "close the quotes"),
                       ("--check ls", "text is missing"), ("--fast x", "unknown /goal option")):
        with pytest.raises(GoalUsageError, match=said):
            parse_goal(line)


def test_goal_verdicts_and_check_results():
    assert verdict("DONE\nall green") == (True, "all green")
    assert verdict("**NOT DONE**\ntwo tests fail") == (False, "two tests fail")
    assert verdict("Not done: one left")[0] is False
    assert verdict("I think so")[0] is False and "did not start with DONE" in verdict("yes")[1]
    assert check_result("ok\n[exit code 0]") == (True, "ok\n[exit code 0]")
    passed, tail = check_result("\n".join(f"line {i}" for i in range(50)) + "\n[exit code 2]")
    assert not passed and tail.splitlines()[0] == "line 31" and tail.endswith("[exit code 2]")
    assert check_result("the command timed out")[0] is False  # no exit code: not done


def test_loop_lines_and_intervals():
    assert [parse_interval(w) for w in ("30s", "5m", "1h", "90", "1.5m")] == [30, 300, 3600, 90, 90]
    assert parse_loop("auto check the build").interval is None
    assert parse_loop("5m check the build").prompt == "check the build"
    for line, said in (("5m", "an interval and a prompt"), ("soon check", "not an interval"),
                       ("0s check", "between"), ("2d check", "not an interval")):
        with pytest.raises(LoopUsageError, match=said):
            parse_loop(line)
    assert [span(s) for s in (270, 3600, 45, 3690)] == ["4m30s", "1h", "45s", "1h1m30s"]


def test_loop_auto_runs_just_inside_the_cache_lifetime():
    rates = Rates(read=0.1, write_5m=1.25)
    choice = choose(300.0, 20_000, rates)
    assert choice.interval == 240.0  # before the keeper's keep-warm at 270 s
    assert "reads the ~20,000-token prefix" in choice.why and "12x dearer" in choice.why
    # cheaper per hour than any interval until the rewrite's price is paid back
    best = per_hour(choice.interval, 300.0, 20_000, rates)
    for other in (60.0, 120.0, 239.0, 300.0, 900.0, 1800.0):
        assert per_hour(other, 300.0, 20_000, rates) > best
    assert choose(3600.0, 20_000, rates).interval == 3540.0  # a 1h entry


def _question_agent(hermes_home, tmp_path, *replies, **config):
    model = ScriptedModel(*replies)
    return scripted_agent(model, hermes_home, tmp_path, **config), model


def test_a_goal_without_check_stops_when_the_answer_says_done(hermes_home, tmp_path):
    agent, model = _question_agent(hermes_home, tmp_path, Reply(text="step one"),
                                   Reply(text="NOT DONE\nstill red"), Reply(text="step two"),
                                   Reply(text="DONE\ngreen"))
    goal = start(agent, GoalSpec("make it green", None, 5))
    notices = []
    while (text := goal.next_message()) is not None:
        notices += [e for e in goal.turn_events(agent, text, CancelToken()) if isinstance(e, Notice)]
        if goal.needs_question:
            notices += [e for e in goal.question_events(agent, CancelToken())
                        if isinstance(e, Notice)]
    assert goal.stop == "done" and goal.turn == 2 and goal.checks == [False, True]
    assert "goal stopped after 2 turns: the goal is met" in notices[-1].text
    assert "Not done yet: still red" in model.requests[2].messages[-1].content
    # the question is an ordinary user message appended to the history, nothing else
    assert model.requests[1].messages[:2] == model.requests[0].messages + [
        model.requests[1].messages[1]]
    assert len({(str(r.system), str(r.tools)) for r in model.requests}) == 1


def test_a_goal_stops_at_the_session_budget(hermes_home, tmp_path):
    usage = Usage(uncached=10, write_5m=4000, output=50)
    agent, _model = _question_agent(hermes_home, tmp_path, Answer(text="worked", usage=usage),
                                    Answer(text="NOT DONE\nmore", usage=usage),
                                    budget=Limits(session_usd=0.001))
    goal = start(agent, GoalSpec("spend", None, 5))
    while (text := goal.next_message()) is not None:
        list(goal.turn_events(agent, text, CancelToken()))
        if goal.needs_question:
            list(goal.question_events(agent, CancelToken()))
    assert goal.stop == "budget" and goal.turn == 1


def test_a_cancelled_goal_says_so(hermes_home, tmp_path):
    agent, _model = _question_agent(hermes_home, tmp_path, Reply(text="x"))
    goal = start(agent, GoalSpec("anything", None, 5))
    cancel = CancelToken()
    cancel.cancel()
    events = list(goal.turn_events(agent, goal.next_message() or "", cancel))
    assert goal.stop == "cancelled" and "stopped by Ctrl-C" in events[-1].text
    assert goal.next_message() is None


def test_a_fork_copies_the_conversation_and_background_states(hermes_home, tmp_path):
    agent, model = _question_agent(hermes_home, tmp_path, Reply(text="first answer"))
    run(agent, "hello there")
    store = agent.store
    fork_id = background.fork(agent)
    row = store.get_session(fork_id)
    original = store.get_session(agent.session_id)
    assert row["parent_id"] == agent.session_id and row["source"] == "background"
    assert row["system_prompt"] == original["system_prompt"]
    assert [(m["role"], m["content"]) for m in store.messages(fork_id)] == [
        (m["role"], m["content"]) for m in store.messages(agent.session_id)]
    assert background.run_state(store, fork_id).state == "running"  # just started
    store.handle.execute("UPDATE sessions SET updated = ? WHERE id = ?",  # started long ago
                         ["2000-01-01T00:00:00+00:00", fork_id])
    assert background.run_state(store, fork_id).state == "failed"  # nobody ever ran it
    background.mark_ended(store, fork_id)
    assert background.run_state(store, fork_id).state == "done"  # its last message answers
    background.mark_starting(store, agent.session_id)
    store.handle.execute("UPDATE sessions SET updated = ? WHERE id = ?",  # a long run
                         ["2000-01-01T00:00:00+00:00", agent.session_id])
    with store.session_lock(agent.session_id):  # its process holds the session
        assert background.run_state(store, agent.session_id).state == "running"
    assert background.run_state(store, agent.session_id).state == "failed"  # it died
    assert [r.id for r in background.runs(store)] == [fork_id, agent.session_id]


def test_loop_auto_comes_before_the_keepers_keep_warm_read(hermes_home, tmp_path):
    """An auto interval that let the REPL's keeper send its keep-warm read first would pay
    one more read per iteration (the keeper reads MARGIN before the entry expires)."""
    from agent.cache.keeper import CacheKeeper, rates_for

    now = [1_000.0]
    agent = scripted_agent(ScriptedModel(Reply(text="watching")), hermes_home, tmp_path,
                           clock=lambda: now[0])
    keeper = CacheKeeper(clock=lambda: now[0])
    for _ in range(3):  # a few turns a short while apart, as before a loop starts
        keeper.turn_started(agent.session_id, agent.caller)
        agent.caller.provider.script(Reply(text="ok"))
        run(agent, "check the build")
        keeper.turn_ended(agent.session_id)
        now[0] += 20
    caller = agent.caller
    chosen = choose(caller.cache_model().lifetime(caller.ttl),
                    caller.prefix_tokens + caller.history_tokens(), rates_for(caller))
    due = keeper.next_due()
    ended = now[0] - 20  # the last turn's end
    assert due is None or due > ended + chosen.interval, (due, ended, chosen.interval)
