"""GPT-5.6 on the Responses API: a session keeps the wire API it started with, and its
compaction's summary call reads the session's cache on OpenAI's lifetimes (30m/12h),
against the fake `/v1/responses` (tests/fakes/responses_rules.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.agent import AIAgent
from agent.compression.request import INSTRUCTION_MARK
from agent.config import AgentConfig
from agent.cost import pricing
from agent.events import ErrorEvent, Notice
from agent.providers.base import ProviderSettings
from agent.usage import Usage
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall
from tests.helpers import project, run

pytestmark = pytest.mark.wire  # opens a socket

MODEL = "gpt-5.6-sol"
MARK = "prompt_cache_breakpoint"


def _agent(fake, home: Path, cwd: Path, *, api: str = "responses",
           resume: str | None = None) -> AIAgent:
    settings = ProviderSettings("openai", MODEL, "k", fake.openai_base_url, api=api)
    config = AgentConfig(provider=settings, home=home, cwd=cwd, toolsets=("file",),
                         context_windows={MODEL: 400_000})
    return AIAgent(config, SessionStore(home / "state.db"), clock=fake.clock.now,
                   **({"session_id": resume} if resume else {}))


def test_a_resumed_session_keeps_its_wire_api_when_the_config_changes(fake_provider,
                                                                     hermes_home, tmp_path):
    cwd = project(tmp_path, hermes_home)
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    first = _agent(fake_provider, hermes_home, cwd, api="responses")
    run(first, "hi")
    # config.yaml now says `openai: {api: chat}`: the stored session stays on Responses
    resumed = _agent(fake_provider, hermes_home, cwd, api="chat", resume=first.session_id)
    said = [n.text for n in resumed.startup_notices if isinstance(n, Notice)]
    assert any("keeps the Responses API" in text for text in said), said
    run(resumed, "again")
    one, two = fake_provider.requests
    assert one.path == two.path == "/v1/responses"
    assert two.status == 200 and two.cache_read > 0
    assert two.body["prompt_cache_options"]["comparison_response_id"] == one.response_id
    # a new session takes the new setting
    fake_provider.script(Reply(text="three"))
    run(_agent(fake_provider, hermes_home, cwd, api="chat"), "new")
    assert fake_provider.last.path == "/v1/chat/completions"


def _unmarked(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items without their breakpoints (a marker is not part of the cached bytes)."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != MARK}
        return [strip(v) for v in value] if isinstance(value, list) else value
    return strip(items)


def _marked(items: list[dict[str, Any]]) -> list[int]:
    return [i for i, item in enumerate(items) if MARK in json.dumps(item)]


def test_summary_call_reads_the_cache_ten_minutes_later(fake_provider, hermes_home, tmp_path):
    """11 turns with a tool call each, a 10-minute pause (past Anthropic's 5m, within
    GPT-5.6's 30m), /compress: the summary call is the session's request plus an
    unmarked instruction, reads >= 80% of its prompt and costs <= 0.35x uncached."""
    cwd = project(tmp_path, hermes_home)
    agent = _agent(fake_provider, hermes_home, cwd)
    for n in range(11):
        (cwd / f"f{n}.txt").write_text("\n".join(f"line {i} of part {n}" for i in range(40)))
        fake_provider.script(Reply(text=f"reading f{n}.txt",
                                   tool_calls=[ToolCall("read_file", {"path": f"f{n}.txt"})]),
                             Reply(text=f"answer {n}: fine"))
        run(agent, f"request {n}: check part {n}")
    previous = fake_provider.requests[-1].body
    fake_provider.clock.advance(600)
    (preview,) = list(agent.compress(preview=True))
    assert "read from the session's cache" in preview.text, preview.text
    fake_provider.script(Reply(text="## Goal\nCheck the parts.\n## Done\nAll 11 parts read."))
    events = list(agent.compress())
    assert not [e for e in events if isinstance(e, ErrorEvent)], events
    call = fake_provider.requests[-1]
    body = call.body
    assert call.status == 200
    # the same prefix: tools, instructions, options, then the previous input byte for byte
    for key in ("model", "tools", "instructions", "reasoning", "include", "store"):
        assert body.get(key) == previous.get(key), key
    assert body["prompt_cache_options"]["mode"] == "explicit"
    before = previous["input"]
    assert _unmarked(body["input"][:len(before)]) == _unmarked(before)
    # breakpoints: where the previous request wrote (its tail, read now), none after it
    # (and the system blocks' marks, as before)
    marks, earlier = _marked(body["input"]), _marked(before)
    assert set(marks) <= set(earlier) and marks[-1] == earlier[-1] == len(before) - 1
    assert [m for m in earlier if m < 2] == [m for m in marks if m < 2]
    ask = body["input"][-1]
    assert INSTRUCTION_MARK in json.dumps(ask) and MARK not in json.dumps(ask)
    assert MARK not in json.dumps(body["input"][len(before):])
    # what the provider billed
    read, prompt = call.cache_read, call.prompt_tokens
    assert read >= 0.8 * prompt, (read, prompt)
    usage = Usage(uncached=call.uncached, write_5m=call.cache_write, cache_read=read,
                  output=call.usage["output_tokens"])
    cost, full = pricing.cost(usage, MODEL), pricing.uncached_cost(usage, MODEL)
    assert cost is not None and full is not None and cost <= 0.35 * full, (cost, full)
    print(f"\nsummary call on {MODEL}: read {read}/{prompt} = {read / prompt:.1%}, "
          f"written {call.cache_write}, cost {cost / full:.3f}x uncached")
