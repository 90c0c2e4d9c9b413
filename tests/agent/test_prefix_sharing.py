"""Prefix sharing across sessions, sub-agents and gateway chats, on the wire:
what the fake provider's cache model (tests/fakes/cache.py: writes at breakpoints, the
20-block lookback, per model + prefix bytes, not per session) lets a FIRST request read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.providers.base import ProviderSettings
from frontend.usage_report import build_report
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall
from tests.fakes.cache import Prompt
from tests.fakes.openai_api import build_blocks as openai_blocks
from tests.helpers import project, tokens_through

MODEL = "claude-sonnet-5"


def make_agent(fake, home: Path, cwd: Path, api: str = "anthropic", **kw: Any) -> AIAgent:
    if api == "anthropic":
        settings = ProviderSettings("anthropic", MODEL, "k", fake.anthropic_base_url)
    else:
        settings = ProviderSettings("openai", "gpt-5", "k", fake.openai_base_url)
    config = AgentConfig(provider=settings, home=home, cwd=cwd, **kw)
    return AIAgent(config, SessionStore(home / "state.db"), clock=fake.clock.now)


def run(agent: AIAgent, text: str) -> None:
    for _ in agent.run_turn(text):
        pass


def test_a_second_session_reads_the_shared_blocks_on_its_first_request(fake_provider,
                                                                       hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    run(make_agent(fake_provider, hermes_home, cwd), "hi")
    fake_provider.clock.advance(60)
    later = make_agent(fake_provider, hermes_home, cwd)
    run(later, "hello")
    first, second = fake_provider.requests
    assert build_report(later.store, later.session_id).shared_read == second.cache_read > 0
    scopes = len(second.body["system"])
    assert scopes == 3  # installation, project, session
    shared = tokens_through(second.body, 1)  # tools + installation + project
    assert second.cache_read == shared
    assert second.cache_read > tokens_through(second.body, 0) > len(second.body["tools"])
    assert all(r.breakpoints <= 4 for r in (first, second))


def test_a_memory_change_between_sessions_still_shares_the_installation_block(
        fake_provider, hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    run(make_agent(fake_provider, hermes_home, cwd), "hi")
    (hermes_home / "memories" / "MEMORY.md").write_text("the build uses ninja now")
    run(make_agent(fake_provider, hermes_home, cwd), "hello")
    _first, second = fake_provider.requests
    assert second.cache_read == tokens_through(second.body, 0)  # tools + installation


def test_a_gateway_chat_shares_the_installation_with_the_cli_and_its_notes_with_itself(
        fake_provider, hermes_home, tmp_path):
    # a tenant's notes are its own, never the operator's: its user/project block differs
    # from the CLI's, the installation block (and the tools) is shared
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    run(make_agent(fake_provider, hermes_home, cwd), "hi")
    run(make_agent(fake_provider, hermes_home, cwd, source="gateway", owner="alice"), "hello")
    run(make_agent(fake_provider, hermes_home, cwd, source="gateway", owner="alice"), "again")
    _first, chat, again = fake_provider.requests
    assert chat.cache_read == tokens_through(chat.body, 0)
    assert again.cache_read == tokens_through(again.body, 1)


def test_a_sub_agent_reads_the_parents_tools_and_stable_blocks(fake_provider, hermes_home,
                                                               tmp_path):
    cwd = project(tmp_path, hermes_home)
    parent = make_agent(fake_provider, hermes_home, cwd)
    fake_provider.script(
        Reply(tool_calls=[ToolCall("delegate_task", {"goal": "look around"})]),
        Reply(tool_calls=[ToolCall("memory", {"action": "add", "target": "memory",
                                              "content": "x"}),
                          ToolCall("delegate_task", {"goal": "deeper"})]),
        Reply(text="child report"), Reply(text="done"))
    run(parent, "delegate")
    top, child_first, child_second, _final = fake_provider.requests
    stable = len(parent.session.blocks)
    assert child_first.body["tools"] == [
        {k: v for k, v in t.items() if k != "cache_control"} for t in top.body["tools"]]
    assert [b["text"] for b in child_first.body["system"][:stable]] == [
        b["text"] for b in top.body["system"][:stable]]
    assert "# Delegated task" in child_first.body["system"][stable]["text"]  # ephemeral
    assert child_first.cache_read >= tokens_through(child_first.body, stable - 1)
    # memory and delegation are in the list but refused when called
    results = [b for m in child_second.body["messages"] if isinstance(m["content"], list)
               for b in m["content"] if b.get("type") == "tool_result"]
    assert len(results) == 2 and all(b.get("is_error") for b in results)
    assert all("not available to this sub-agent" in str(b["content"]) for b in results)
    assert "x" not in (hermes_home / "memories" / "MEMORY.md").read_text().split("\n")
    assert all(r.breakpoints <= 4 for r in fake_provider.requests)
    # /usage: the parent's first call read nothing shared; the child's first call did
    assert build_report(parent.store, parent.session_id).shared_read == (
        top.cache_read + child_first.cache_read)


def test_a_session_stored_without_a_layout_resumes_as_one_identical_block(
        fake_provider, hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    agent = make_agent(fake_provider, hermes_home, cwd)
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    run(agent, "hi")
    agent.store.update_session(agent.session_id, stable_layout=None)  # as before migration 0003
    stored = agent.store.get_session(agent.session_id)["system_prompt"]
    resumed = AIAgent(agent.config, agent.store, session_id=agent.session_id,
                      clock=fake_provider.clock.now)
    run(resumed, "again")
    last = fake_provider.requests[-1]
    assert [b["text"] for b in last.body["system"]] == [stored]


def test_openai_sessions_share_one_cache_key_and_read_the_shared_prefix(fake_provider,
                                                                         hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    first = make_agent(fake_provider, hermes_home, cwd, api="openai")
    run(first, "hi")
    second = make_agent(fake_provider, hermes_home, cwd, api="openai")
    run(second, "hello")
    a, b = fake_provider.requests
    assert a.body["prompt_cache_key"] == b.body["prompt_cache_key"]
    assert second.session_id not in b.body["prompt_cache_key"]
    blocks = openai_blocks(b.body)
    tools_end = Prompt("gpt-5", blocks).cum[len(b.body["tools"]) - 1]
    shared = b.body["messages"][0]["content"].index("# Environment")  # the session facts
    assert b.cache_read > tools_end  # reads go into the system text, not only the tools
    assert b.cache_read >= tools_end + shared // 4 - 128  # up to the session facts (128-steps)
