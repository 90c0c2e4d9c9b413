"""GPT-5.6 on the Responses API end to end: the agent against the fake `/v1/responses`
(its GPT-5.6 rules: tests/fakes/responses_rules.py) - placement, billed writes, provider
diagnoses, reasoning items in tool loops and after resume; older models untouched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.agent import AIAgent
from agent.cache.idle_policy import MARGIN
from agent.cache.keeper import CacheKeeper
from agent.config import AgentConfig
from agent.cost import pricing
from agent.providers.base import ProviderSettings
from frontend.usage_report import build_report
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall
from tests.helpers import project, run

pytestmark = pytest.mark.wire  # opens a socket

NEW, OLD = "gpt-5.6-sol", "gpt-5.5"


def make_agent(fake, home: Path, cwd: Path, model: str = NEW, *, api: str = "responses",
               store: bool = True, resume: str | None = None, **kw: Any) -> AIAgent:
    settings = ProviderSettings("openai", model, "k", fake.openai_base_url, api=api,
                                store=store)
    config = AgentConfig(provider=settings, home=home, cwd=cwd, **kw)
    return AIAgent(config, SessionStore(home / "state.db"), clock=fake.clock.now,
                   **({"session_id": resume} if resume else {}))


def marks(body: dict[str, Any]) -> int:
    return json.dumps(body).count('"prompt_cache_breakpoint"')


def test_a_new_session_reads_the_shared_blocks_an_earlier_one_wrote(fake_provider,
                                                                    hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    run(make_agent(fake_provider, hermes_home, cwd), "hi")
    fake_provider.clock.advance(60)
    later = make_agent(fake_provider, hermes_home, cwd)
    run(later, "hello")
    first, second = fake_provider.requests
    assert first.path == "/v1/responses" and 0 < marks(second.body) <= 4
    assert second.body["prompt_cache_options"]["mode"] == "explicit"
    assert second.cache_read / second.prompt_tokens >= 0.9
    assert build_report(later.store, later.session_id).shared_read == second.cache_read


def test_tool_loops_send_reasoning_back_and_the_cost_is_what_the_provider_billed(
        fake_provider, hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    (cwd / "a.txt").write_text("alpha")
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})],
                               thinking="Read a first."),
                         Reply(text="it says alpha"), Reply(text="bye"))
    agent = make_agent(fake_provider, hermes_home, cwd)
    run(agent, "what is in a.txt?")
    run(agent, "thanks")
    records = fake_provider.requests
    assert [r.status for r in records] == [200, 200, 200]
    loop_input = records[1].body["input"]
    assert [i.get("type") for i in loop_input[-3:]] == [
        "reasoning", "function_call", "function_call_output"]
    assert loop_input[-3]["encrypted_content"]
    # provider diagnosis on every follow-up; a hit names no cause
    assert all(r.body["prompt_cache_options"].get("comparison_response_id")
               for r in records[1:])
    assert all(r.miss_reason == "cache_hit" for r in records[1:])
    # what we priced equals what the provider billed, writes at 1.25x input
    price = pricing.prices(NEW)
    assert price is not None and price.cache_write_5m == pytest.approx(1.25 * price.input)
    billed = sum((r.prompt_tokens - r.cache_read - r.cache_write) * price.input
                 + r.cache_write * price.cache_write_5m + r.cache_read * price.cache_read
                 + r.usage["output_tokens"] * price.output for r in records) / 1e6
    report = build_report(agent.store, agent.session_id)
    assert report.session.cost == pytest.approx(billed)
    assert report.session.write_5m == sum(r.cache_write for r in records) > 0


def test_a_resumed_session_replays_reasoning_and_compares_with_its_last_response(
        fake_provider, hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(text="one", thinking="hmm"), Reply(text="two"))
    first = make_agent(fake_provider, hermes_home, cwd)
    run(first, "hi")
    resumed = make_agent(fake_provider, hermes_home, cwd, resume=first.session_id)
    run(resumed, "again")
    one, two = fake_provider.requests
    assert two.status == 200
    assert two.body["prompt_cache_options"]["comparison_response_id"] == one.response_id
    assert any(i.get("type") == "reasoning" for i in two.body["input"])
    assert two.cache_read > 0 and two.miss_reason == "cache_hit"


def test_a_model_change_is_named_by_the_provider(fake_provider, hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    agent = make_agent(fake_provider, hermes_home, cwd)
    run(agent, "hi")
    agent.switch_model("gpt-5.6-terra")
    run(agent, "again")
    assert fake_provider.last.miss_reason == "model_changed"
    rows = agent.store.usage_rows(agent.session_id)
    assert [r["provider_miss_reason"] for r in rows] == [None, "model_changed"]
    misses = build_report(agent.store, agent.session_id).misses
    assert [m.cause for m in misses] == ["model_changed"]


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_older_models_never_get_a_5_6_only_parameter(fake_provider, hermes_home, tmp_path,
                                                      api):
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "x"})]),
                         Reply(text="one"), Reply(text="two"))
    agent = make_agent(fake_provider, hermes_home, cwd, OLD, api=api)
    run(agent, "hi")
    run(agent, "again")
    assert [r.status for r in fake_provider.requests] == [200, 200, 200]
    for record in fake_provider.requests:
        assert "prompt_cache_options" not in record.body and marks(record.body) == 0


def test_auto_picks_chat_completions_for_a_local_server(fake_provider, hermes_home, tmp_path):
    fake_provider.script(Reply(text="one"))
    run(make_agent(fake_provider, hermes_home, project(tmp_path, hermes_home), api="auto"),
        "hi")
    assert fake_provider.last.path == "/v1/chat/completions"
    assert "prompt_cache_options" not in fake_provider.last.body


def test_a_paused_session_is_kept_warm_with_prewarm_on_openai_lifetimes(
        fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, project(tmp_path, hermes_home),
                       cache_ttl="5m", ttl_explicit=True)
    keeper = CacheKeeper(clock=fake_provider.clock.now)
    keeper.turn_started(agent.session_id, agent.caller)
    run(agent, "hello")
    keeper.turn_ended(agent.session_id)
    for _ in range(6):  # this user pauses ~35 minutes between turns
        keeper.watching(agent.session_id).gaps.observe(2100)
    before = fake_provider.last
    assert before.body["prompt_cache_options"]["ttl"] == "30m"
    fake_provider.clock.advance(1800 - MARGIN - 1)
    assert keeper.run_due() == []  # a 30-minute entry: nothing due before 29.5 minutes
    fake_provider.clock.advance(1)
    assert [e.action for e in keeper.run_due()] == ["read"]
    warm = fake_provider.last
    assert warm.body["prompt_cache_options"]["prewarm"] is True
    assert warm.body["input"] == before.body["input"] and warm.usage["output_tokens"] == 0
    assert warm.cache_read == before.prompt_tokens and warm.cache_write == 0
    fake_provider.clock.advance(600)  # 40 minutes after the turn
    keeper.turn_started(agent.session_id, agent.caller)
    run(agent, "back")
    assert fake_provider.last.cache_read >= before.prompt_tokens
    rows = agent.store.usage_rows(agent.session_id)
    assert [r["kind"] for r in rows] == ["", "keep_warm", ""]
    report = build_report(agent.store, agent.session_id)
    assert report.idle is not None and report.idle.keep_warm_reads == 1


def test_with_store_false_reasoning_travels_encrypted_and_nothing_is_compared(
        fake_provider, hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    (cwd / "a.txt").write_text("alpha")
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})]),
                         Reply(text="alpha it is"))
    run(make_agent(fake_provider, hermes_home, cwd, store=False), "read a.txt")
    first, second = fake_provider.requests
    assert first.status == second.status == 200 and second.body["store"] is False
    assert "comparison_response_id" not in second.body["prompt_cache_options"]
    sent = [i for i in second.body["input"] if i.get("type") == "reasoning"]
    assert sent and sent[0]["encrypted_content"]
