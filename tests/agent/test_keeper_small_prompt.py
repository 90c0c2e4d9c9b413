"""Keep-warm never pays for a prompt the provider cannot cache: below the model's cache
minimum each read would re-send the whole prompt and read 0 (fast tier: scripted model,
a hand-moved clock)."""

from __future__ import annotations

from agent.cache.keeper import CacheKeeper
from agent.providers.models import min_cache_tokens
from tests.fakes.scripted import ScriptedModel
from tests.helpers import scripted_agent


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _idle_reads(model_name: str, hermes_home, tmp_path) -> tuple[list, str, int, int]:
    clock = Clock()
    agent = scripted_agent(ScriptedModel(), hermes_home, tmp_path, clock=clock,
                           model_name=model_name)
    keeper = CacheKeeper(clock=clock)
    keeper.turn_started(agent.session_id, agent.caller)
    assert list(agent.run_turn("hello"))[-1].reason == "answer"
    keeper.turn_ended(agent.session_id)
    events, until = [], clock.now + 1_200  # 20 idle minutes, each read when it is due
    while (due := keeper.next_due()) is not None and due <= until:
        clock.now = max(clock.now, due)
        events += keeper.run_due()
    clock.now = until
    events += keeper.run_due()
    prompt = agent.caller.state.last_prompt_tokens
    stopped = keeper.watching(agent.session_id).stopped
    agent.close()
    return events, stopped, prompt, min_cache_tokens(model_name)


def test_a_prompt_under_the_cache_minimum_is_never_kept_warm(hermes_home, tmp_path):
    events, stopped, prompt, minimum = _idle_reads("claude-haiku-4-5", hermes_home, tmp_path)
    assert prompt < minimum
    assert [e for e in events if e.action == "read"] == []  # before: 3 reads in 20 minutes
    assert "minimum cacheable size" in stopped
