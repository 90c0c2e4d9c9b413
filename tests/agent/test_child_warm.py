"""Sub-agents that start together share one write: when the parent's cached prefix has
expired by the time they start, it is warmed once (a `max_tokens: 0` read of the
parent's last request) and the four children read it, instead of each writing it in
parallel (the fake server's `prefill`: what a request writes is readable only once its
response begins)."""

from __future__ import annotations

from agent.agent import AIAgent, build_registry
from agent.config import AgentConfig
from agent.providers.base import ProviderSettings
from agent.tools.registry import Tool, ToolRegistry
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall
from tests.helpers import MODEL, run, tokens_through


def _agent(fake, home, cwd) -> AIAgent:
    """An agent with one more tool, `pause`: the time a long command would take (the
    fake clock moves past the cache lifetime while it "runs")."""
    def pause(args, ctx) -> str:
        fake.clock.advance(float(args.get("seconds", 400)))
        return "paused"

    base = build_registry(None)
    tools = [t for name in base.names() if (t := base.get(name)) is not None]
    registry = ToolRegistry([*tools, Tool("pause", "terminal", "Wait.", {"type": "object"},
                                           pause)])
    config = AgentConfig(provider=ProviderSettings("anthropic", MODEL, "test-key",
                                                   fake.anthropic_base_url), home=home, cwd=cwd)
    return AIAgent(config, SessionStore(home / "state.db"), clock=fake.clock.now,
                   registry=registry)


def test_four_children_started_together_write_their_shared_prefix_once(fake_provider,
                                                                        hermes_home, tmp_path):
    agent = _agent(fake_provider, hermes_home, tmp_path)
    goals = [f"subtask {i}" for i in range(4)]
    fake_provider.prefill = 0.5

    def respond(rec):
        system = str(rec.body.get("system"))
        if "Delegated task" in system:
            return Reply(text="child report")
        if len(rec.body["messages"]) == 1:
            return Reply(tool_calls=[ToolCall("pause", {"seconds": 400}),
                                     *[ToolCall("delegate_task", {"goal": g}) for g in goals]])
        return Reply(text="all done")

    fake_provider.responder = respond
    run(agent, "split the work after a pause")
    requests = [r for r in fake_provider.requests if r.status == 200]
    children = [r for r in requests if "Delegated task" in str(r.body.get("system"))]
    warm = [r for r in requests if r.body.get("max_tokens") == 0]
    stable = len(agent.session.blocks)
    shared = tokens_through(children[0].body, stable - 1)  # tools + the stable blocks
    # after the parent's first request, one request wrote the shared prefix (without the
    # warm-up: each of the four children, sent together)
    assert sum(r.cache_write >= shared for r in requests[1:]) == 1
    assert len(children) == 4 and len(warm) == 1
    # the warm-up wrote the shared prefix; every child read it and wrote only its own part
    assert warm[0].cache_write >= shared
    for child in children:
        assert child.cache_read >= shared
        assert child.cache_write <= child.prompt_tokens - shared


def test_children_started_while_the_prefix_is_live_send_no_warm_up(fake_provider, hermes_home,
                                                                   tmp_path):
    agent = _agent(fake_provider, hermes_home, tmp_path)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("delegate_task", {"goal": f"subtask {i}"}) for i in range(4)]),
        *[Reply(text="child report") for _ in range(4)], Reply(text="all done"))
    run(agent, "split the work")
    assert not [r for r in fake_provider.requests if r.body.get("max_tokens") == 0]
