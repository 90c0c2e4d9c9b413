"""Usage truth and miss diagnosis across providers, through the real agent."""

from __future__ import annotations

import pytest

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.events import Notice, UsageEvent
from agent.prompts.prefix import cache_key
from agent.providers.base import ProviderSettings
from frontend.usage_report import build_report
from memory.store import SessionStore
from tests.fakes import FakeProvider
from tests.helpers import make_agent, run


def openai_agent(fake, home, cwd, model="gpt-5.5", **config) -> AIAgent:
    settings = ProviderSettings("openai", model, "test-key", fake.openai_base_url)
    cfg = AgentConfig(provider=settings, home=home, cwd=cwd, **config)
    return AIAgent(cfg, SessionStore(home / "state.db"), clock=fake.clock.now)


@pytest.mark.wire
@pytest.mark.parametrize("style", ["openai", "openrouter", "deepseek", "llamacpp", "none"])
def test_openai_compatible_usage_styles(style, hermes_home, tmp_path):
    with FakeProvider(openai_usage_style=style, openai_min_cache_tokens=128, openai_cache_step=64) as fake:
        agent = openai_agent(fake, hermes_home, tmp_path)
        for text in ("one", "two", "three"):
            run(agent, text)
        records = fake.requests
        # one key per installation + provider + model (agent.prompts.prefix.cache_key), not per session
        key = cache_key(agent.config.home, agent.provider_name, agent.model)
        assert all(r.body.get("prompt_cache_key") == key for r in records)
        assert agent.session_id not in key
        report = build_report(agent.store, agent.session_id)
        prompt = sum(r.usage["prompt_tokens"] for r in records)
        assert report.session.prompt_tokens == prompt
        if style == "none":
            assert report.session.hit_rate is None  # unknown, never 0%
        else:
            assert report.session.cache_read == sum(r.cache_read for r in records) > 0
            assert report.session.hit_rate == pytest.approx(report.session.cache_read / prompt)


@pytest.mark.wire
def test_openrouter_claude_gets_cache_control_in_content_parts(hermes_home, tmp_path):
    with FakeProvider(openai_usage_style="openrouter") as fake:
        agent = openai_agent(fake, hermes_home, tmp_path, model="anthropic/claude-sonnet-5")
        run(agent, "hello")
        run(agent, "again")
        body = fake.requests[-1].body
        marked = [part for m in body["messages"] if isinstance(m["content"], list)
                  for part in m["content"] if "cache_control" in part]
        assert 1 <= len(marked) <= 4
        assert fake.requests[-1].breakpoints == len(marked)
        plain = openai_agent(fake, hermes_home, tmp_path, model="gpt-5.5")
        run(plain, "hi")
        assert "cache_control" not in str(fake.requests[-1].body)


def test_expiry_is_diagnosed(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "one")
    fake_provider.clock.advance(301)
    events = run(agent, "two")
    usage = [e for e in events if isinstance(e, UsageEvent)][0]
    assert usage.miss_cause == "expired" and usage.usage.cache_read == 0
    row = agent.store.usage_rows(agent.session_id)[-1]
    assert row["miss_cause"] == "expired" and "TTL" in row["miss_detail"]


def test_one_hour_prefix_ttl_survives_a_long_gap(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path, prefix_ttl="1h")
    run(agent, "one")
    fake_provider.clock.advance(900)
    run(agent, "two")
    first, second = fake_provider.requests
    assert first.body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert first.body["tools"][-1]["cache_control"]["ttl"] == "1h"
    assert second.cache_read > 0  # tools + system still cached after 15 minutes
    assert first.usage["cache_creation"]["ephemeral_1h_input_tokens"] > 0


def test_personality_switch_is_one_announced_miss(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "one")
    notice = agent.set_personality("concise", "Answer briefly.")
    assert "rebuilt" in notice.text and "tokens" in notice.text
    events = run(agent, "two")
    run(agent, "three")
    usage = [e for e in events if isinstance(e, UsageEvent)][0]
    assert usage.miss_cause == "system_changed"
    assert fake_provider.requests[-1].cache_read > 0
    misses = build_report(agent.store, agent.session_id).misses
    assert [m.cause for m in misses] == ["system_changed"]


def test_model_switch_is_exactly_one_miss_and_back_reads_again(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "one")
    notice = agent.switch_model("claude-opus-5")
    assert "re-sends ~" in notice.text
    run(agent, "two")
    run(agent, "three")
    agent.switch_model("claude-sonnet-5")
    run(agent, "four")
    records = fake_provider.requests
    assert [r.model for r in records] == ["claude-sonnet-5", "claude-opus-5", "claude-opus-5", "claude-sonnet-5"]
    assert records[1].cache_read == 0 and records[2].cache_read > 0 and records[3].cache_read > 0
    assert [m.cause for m in build_report(agent.store, agent.session_id).misses] == ["model_changed"]
    assert "Model: claude-sonnet-5 (anthropic)" in "\n\n".join(b["text"] for b in records[3].body["system"])


@pytest.mark.wire
def test_small_prefix_warns_once_and_is_diagnosed(hermes_home, tmp_path):
    with FakeProvider() as fake:  # real minimums: haiku-4-5 needs 4,096 tokens
        settings = ProviderSettings("anthropic", "claude-haiku-4-5", "k", fake.anthropic_base_url)
        cfg = AgentConfig(provider=settings, home=hermes_home, cwd=tmp_path, toolsets=("todo",))
        agent = AIAgent(cfg, SessionStore(hermes_home / "state.db"))
        first = run(agent, "one")
        second = run(agent, "two")
        warnings = [e for e in first + second if isinstance(e, Notice) and "minimum cacheable" in e.text]
        assert len(warnings) == 1
        causes = [e.miss_cause for e in first + second if isinstance(e, UsageEvent)]
        assert causes == ["too_small", "too_small"]
        assert all(r.cache_read == 0 and r.cache_write == 0 for r in fake.requests)


def test_report_totals_equal_server_record_exactly(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    for i in range(5):
        run(agent, f"turn {i}")
    report = build_report(agent.store, agent.session_id)
    records = fake_provider.requests
    assert report.session.calls == len(records)
    assert report.session.cache_read == sum(r.usage["cache_read_input_tokens"] for r in records)
    assert report.session.write_5m == sum(r.usage["cache_creation_input_tokens"] for r in records)
    assert report.session.uncached == sum(r.usage["input_tokens"] for r in records)
    assert report.session.output == sum(r.usage["output_tokens"] for r in records)
    assert len(report.per_turn) == 5


def test_model_switch_touches_only_the_environment_line(fake_provider, hermes_home, tmp_path):
    (hermes_home / "SOUL.md").write_text("Model: my own line that must stay\nI am a soul.")
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    before = agent.stable
    agent.switch_model("claude-opus-5")
    assert agent.stable.startswith("Model: my own line that must stay")
    assert agent.stable == before.replace("Model: claude-sonnet-5 (anthropic)", "Model: claude-opus-5 (anthropic)")


def test_partial_read_after_a_gap_is_explained(fake_provider, hermes_home, tmp_path):
    """1h prefix TTL, 5m message TTL, a 10-minute gap: tools + system are still read but
    the conversation expired - a partial miss, explained, with the tokens it cost."""
    agent = make_agent(fake_provider, hermes_home, tmp_path, prefix_ttl="1h")
    run(agent, "one " * 300)
    fake_provider.clock.advance(600)
    events = run(agent, "two")
    usage = [e for e in events if isinstance(e, UsageEvent)][0]
    first = fake_provider.requests[0]
    assert 0 < usage.usage.cache_read < first.prompt_tokens
    assert usage.miss_cause == "expired" and "only" in usage.miss_detail
    row = agent.store.usage_rows(agent.session_id)[-1]
    assert row["missed_tokens"] == first.prompt_tokens - usage.usage.cache_read
    assert [m.cause for m in build_report(agent.store, agent.session_id).misses] == ["expired"]


def test_provider_diagnosis_is_kept_beside_ours(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "one")
    agent.set_personality("concise", "Be brief.")
    run(agent, "two")
    rows = agent.store.usage_rows(agent.session_id)
    assert rows[-1]["miss_cause"] == "system_changed"
    assert rows[-1]["provider_miss_reason"] == fake_provider.requests[-1].miss_reason == "system_changed"
    assert rows[0]["provider_miss_reason"] is None


def test_reasoning_effort_change_is_named(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "one")
    events = list(agent.run_turn("two", reasoning_effort="high"))
    usage = [e for e in events if isinstance(e, UsageEvent)][0]
    assert usage.miss_cause == "thinking_changed"
    assert usage.miss_detail == "reasoning settings changed (thinking off -> thinking off, effort high)"
    assert fake_provider.requests[-1].body["output_config"] == {"effort": "high"}
