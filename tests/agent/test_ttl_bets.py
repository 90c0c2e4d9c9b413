"""The 1h bet only where it pays, fast tier: the keeper picks each
call's lifetime for the tokens that call writes, never on the prior alone, and a call
followed by another within seconds (a tool loop) is weighed by its small chance of
ending the turn. A scripted clock; the TTLs asserted are the ones the model received."""

from __future__ import annotations

from pathlib import Path

from agent.cache.idle_policy import ONE_HOUR, GapModel, Rates, choose_ttl
from agent.cache.keeper import CacheKeeper
from tests.fakes.script import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def model_of(*gaps: float) -> GapModel:
    model = GapModel()
    for gap in gaps:
        model.observe(gap)
    return model


def ttls(model: ScriptedModel, first: int = 0) -> list[set[str]]:
    """Per call from `first`: the lifetimes its breakpoints asked for."""
    return [{p.ttl for p in call.request.breakpoints} for call in model.calls[first:]]


def session(tmp_path: Path, home: Path) -> tuple[ScriptedModel, Clock, CacheKeeper, object]:
    clock = Clock()
    model = ScriptedModel()
    agent = scripted_agent(model, home, tmp_path, clock=clock)
    return model, clock, CacheKeeper(clock=clock), agent


def turn(keeper: CacheKeeper, agent, model: ScriptedModel, *replies: Reply) -> None:
    model.script(*replies)
    keeper.turn_started(agent.session_id, agent.caller)
    run(agent, "next")
    keeper.turn_ended(agent.session_id)


def test_no_premium_on_the_prior_alone():
    """Seconds between turns so far: the prior's long gaps never buy a 1h write (the
    build that bet nine seconds into a session did), however small the write."""
    for gaps in ((), (9.0,), (9.0, 14.0, 22.0)):
        assert choose_ttl(model_of(*gaps), 3_000, 100, Rates(), max_idle=3 * ONE_HOUR) == "5m"
    # once the session itself paused for ten minutes, often, the small write is worth it
    assert choose_ttl(model_of(*[20.0, 600.0] * 5), 3_000, 100, Rates(),
                      max_idle=3 * ONE_HOUR) == "1h"


def test_a_call_that_rarely_ends_its_turn_does_not_bet():
    model = model_of(*[20.0, 600.0] * 10)
    assert choose_ttl(model, 50_000, 1_500, Rates(), max_idle=3 * ONE_HOUR) == "1h"
    assert choose_ttl(model, 50_000, 1_500, Rates(), max_idle=3 * ONE_HOUR,
                      ends_turn=0.02) == "5m"


def test_quick_turns_write_at_five_minutes(hermes_home, tmp_path):
    """Turns a few seconds apart, no pause seen: every call of every turn 5m."""
    model, clock, keeper, agent = session(tmp_path, hermes_home)
    for _ in range(5):
        turn(keeper, agent, model, Reply(text="sure"))
        clock.now += 9.0
    assert ttls(model) == [{"5m"}] * 5


def test_a_large_tool_result_after_a_pause_is_not_written_at_one_hour(hermes_home, tmp_path):
    """One 7-minute pause seen, then a turn reading a ~5,000-token file: the call that
    writes it pays 2x on all of it for a saving that small a pause history cannot
    promise, so it goes at 5m (the build that chose per turn wrote it at 1h)."""
    (tmp_path / "build.log").write_text("line of the build log, fairly long\n" * 560)
    model, clock, keeper, agent = session(tmp_path, hermes_home)
    for gap in (9.0, 14.0, 420.0, 12.0):
        turn(keeper, agent, model, Reply(text="noted"))
        clock.now += gap
    first = len(model.calls)
    turn(keeper, agent, model, Reply(tool_calls=[ToolCall("read_file", {"path": "build.log"})]),
         Reply(text="the failure is on line 3"))
    assert ttls(model, first)[1] == {"5m"}, ttls(model, first)
