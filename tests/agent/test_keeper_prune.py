"""The cache keeper forgets a session once the front end dropped its agent (the
gateway's cache evicted it): a watch holds the agent's caller, and a gateway serving
thousands of sessions must not keep every agent it ever built. Fast tier."""

from __future__ import annotations

from agent.cache.keeper import CacheKeeper
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedModel
from tests.helpers import run, scripted_agent


def test_dropped_agents_are_forgotten_and_live_ones_kept(hermes_home, tmp_path):
    keeper = CacheKeeper()
    cached = {}
    for name in ("a", "b", "c"):
        agent = scripted_agent(ScriptedModel(Reply(text="ok")), hermes_home, tmp_path)
        cached[name] = agent
        keeper.turn_started(name, agent.caller, alive=lambda n=name: n in cached)
        run(agent, "hi")
        keeper.turn_ended(name)
    assert len(keeper) == 3
    del cached["a"], cached["b"]  # evicted by the front end
    keeper.run_due()
    assert len(keeper) == 1 and keeper.watching("c") is not None
    keeper.turn_started("c", cached["c"].caller, alive=lambda: False)  # busy: never dropped
    assert keeper.prune() == 0 and len(keeper) == 1
    keeper.turn_ended("c")
    assert keeper.prune() == 1 and len(keeper) == 0
