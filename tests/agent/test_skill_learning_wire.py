"""A skill written mid-session against the fake Anthropic server (wire tier): the system
and tools bytes the provider received are the same before and after the write, every
call after the first reads the cache (no miss caused by the write), and the next session
started by the real CLI lists the skill in its index."""

from __future__ import annotations

import json

import pytest

from skills.authored import answer as approve
from tests.fakes import Reply, ToolCall
from tests.helpers import anthropic_env, hermes, make_agent, run

pytestmark = pytest.mark.wire

SKILL = ("---\nname: flaky-test-triage\ndescription: Find why a test fails only sometimes.\n"
         "---\n# Flaky tests\n1. Re-run it 20 times and keep each log.\n")


def _bare(items: list[dict]) -> list[dict]:
    return [{k: v for k, v in item.items() if k != "cache_control"} for item in items]


def test_a_skill_write_changes_no_prompt_byte_and_misses_no_cache(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path, toolsets=("file", "skills"))
    run(agent, "first")
    fake_provider.script(Reply(tool_calls=[ToolCall("skill_manage", {
        "action": "create", "name": "flaky-test-triage", "content": SKILL})]), Reply(text="saved"))
    run(agent, "save that")
    fake_provider.script(Reply(tool_calls=[ToolCall("skill_view", {"name": "flaky-test-triage"})]),
                         Reply(text="read"))
    run(agent, "load it")
    run(agent, "last")
    records = fake_provider.requests
    assert len(records) == 6 and all(r.status == 200 for r in records)
    sent = {json.dumps([_bare(r.body["system"]), _bare(r.body["tools"])]) for r in records}
    assert len(sent) == 1, "the system or tools bytes changed after the skill write"
    assert "flaky-test-triage" not in json.dumps(records[-1].body["system"])
    assert "Re-run it 20 times" in json.dumps(records[-2].body["messages"])  # skill_view read it
    assert all(r.cache_read > 0 for r in records[1:])
    causes = [row["miss_cause"] for row in agent.store.usage_rows(agent.session_id)]
    assert causes[0] == "cold" and causes[1:] == [None] * 5, causes


def test_the_next_cli_session_lists_the_skill_in_its_index(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(Reply(tool_calls=[ToolCall("skill_manage", {
        "action": "create", "name": "flaky-test-triage", "content": SKILL})]), Reply(text="saved"))
    first = hermes(["-q", "save a skill"], env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "new skill flaky-test-triage: in the index from your next session" in first.stderr
    assert "flaky-test-triage" not in json.dumps(fake_provider.requests[-1].body["system"])
    second = hermes(["-q", "hello again"], env, cwd=tmp_path)  # one-shot: held, with a notice
    assert second.returncode == 0, second.stderr
    assert "flaky-test-triage was written by hermes and is not loaded" in second.stderr
    assert "flaky-test-triage" not in json.dumps(fake_provider.requests[-1].body["system"])
    approve(hermes_home / "skills" / "flaky-test-triage", True)  # what the REPL's "y" keeps
    third = hermes(["-q", "hello again"], env, cwd=tmp_path)
    assert third.returncode == 0, third.stderr
    system = "\n".join(b["text"] for b in fake_provider.requests[-1].body["system"])
    assert "- flaky-test-triage: Find why a test fails only sometimes." in system
    listing = hermes(["skills", "list"], env, cwd=tmp_path)
    line = next(x for x in listing.stdout.splitlines() if x.startswith("flaky-test-triage"))
    assert "written by hermes" in line, listing.stdout


def test_on_the_responses_api_the_provider_reports_a_hit_after_the_write(fake_provider, hermes_home,
                                                                         tmp_path):
    from agent.agent import AIAgent
    from agent.config import AgentConfig
    from agent.providers.base import ProviderSettings
    from memory.store import SessionStore

    settings = ProviderSettings("openai", "gpt-5.6-sol", "k", fake_provider.openai_base_url,
                                api="responses")
    agent = AIAgent(AgentConfig(provider=settings, home=hermes_home, cwd=tmp_path,
                                toolsets=("file", "skills")),
                    SessionStore(hermes_home / "state.db"), clock=fake_provider.clock.now)
    run(agent, "first")
    fake_provider.script(Reply(tool_calls=[ToolCall("skill_manage", {
        "action": "create", "name": "flaky-test-triage", "content": SKILL})]), Reply(text="saved"))
    run(agent, "save that")
    run(agent, "last")
    records = fake_provider.requests
    assert [r.path for r in records] == ["/v1/responses"] * 4
    system = [[[{k: v for k, v in part.items() if k != "prompt_cache_breakpoint"}  # markers
                for part in i["content"]] for i in r.body["input"] if i.get("role") == "system"]
              for r in records]
    assert all(s == system[0] for s in system) and "flaky-test-triage" not in json.dumps(system)
    assert len({json.dumps(r.body["tools"]) for r in records}) == 1
    assert all(r.miss_reason == "cache_hit" for r in records[1:])  # the provider's own verdict
    assert (hermes_home / "skills" / "flaky-test-triage" / "SKILL.md").read_text() == SKILL
