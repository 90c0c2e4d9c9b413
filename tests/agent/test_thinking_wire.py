"""Extended thinking through the real agent, the real anthropic SDK and the fake API:
every continuation accepted, blocks re-sent byte-identically (also after a resume), a
settings change announced and diagnosed, the grace call with thinking on."""

from __future__ import annotations

import json

import pytest

from agent.agent import AIAgent
from agent.events import Done, ThinkingDelta, UsageEvent
from agent.messages import Reasoning
from frontend.reasoning_switch import set_reasoning
from frontend.usage_report import build_report
from tests.fakes import Reply, ToolCall
from tests.fakes.cache import strip_cache_control
from tests.helpers import make_agent, run

pytestmark = pytest.mark.wire

BUDGET = Reasoning("budget", 2048)


def read_calls(n: int) -> list[Reply]:
    return [Reply(tool_calls=[ToolCall("read_file", {"path": "seed.txt"}, id=f"toolu_{i}")],
                  thinking=f"Step {i}: read the seed again.", redacted=(i == 3))
            for i in range(n)]


def assistant_blocks(body: dict) -> list[list[dict]]:
    """Each wire assistant message's thinking blocks, in order."""
    return [[b for b in m["content"] if b["type"] in ("thinking", "redacted_thinking")]
            for m in body["messages"] if m["role"] == "assistant"]


def test_ten_iteration_tool_loop_with_thinking(fake_provider, hermes_home, tmp_path):
    (tmp_path / "seed.txt").write_text("alpha\n")
    agent = make_agent(fake_provider, hermes_home, tmp_path, reasoning=BUDGET)
    fake_provider.script(*read_calls(10), Reply(text="all read", thinking="Done reading."))
    events = run(agent, "read it ten times")
    records = fake_provider.requests
    assert len(records) == 11 and all(r.status == 200 for r in records)  # every one accepted
    assert all(r.body["thinking"] == {"type": "enabled", "budget_tokens": 2048} for r in records)
    assert all(r.body["max_tokens"] > 2048 for r in records)
    final = assistant_blocks(records[-1].body)
    assert len(final) == 10 and final[3][0]["type"] == "redacted_thinking"
    for earlier in records[1:-1]:  # every earlier request's blocks are a byte-equal prefix
        sent = assistant_blocks(earlier.body)
        assert json.dumps(sent) == json.dumps(final[:len(sent)])
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)).startswith("Step 0")
    assert records[-1].cache_read > 0 and records[-1].miss_reason is None
    outputs = [e.usage.output for e in events if isinstance(e, UsageEvent)]
    assert outputs == [r.usage["output_tokens"] for r in records]  # thinking billed as output


def test_resume_mid_session_resends_blocks_byte_identically(fake_provider, hermes_home, tmp_path):
    (tmp_path / "seed.txt").write_text("alpha\n")
    agent = make_agent(fake_provider, hermes_home, tmp_path, reasoning=BUDGET)
    fake_provider.script(*read_calls(2), Reply(text="read twice"))
    run(agent, "read it twice")
    before = strip_cache_control(fake_provider.last.body["messages"])
    resumed = AIAgent(agent.config, agent.store, session_id=agent.session_id,
                      clock=fake_provider.clock.now)
    fake_provider.script(*read_calls(1), Reply(text="again"))
    run(resumed, "once more")
    after = strip_cache_control(fake_provider.requests[-1].body["messages"])
    assert json.dumps(after[:len(before)]) == json.dumps(before)  # including signatures
    assert assistant_blocks({"messages": before})[0][0]["signature"]
    assert fake_provider.requests[-1].status == 200
    assert fake_provider.requests[-2].cache_read > 0  # the resumed prefix was read


def test_a_settings_change_is_announced_and_diagnosed(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    run(agent, "one " * 200)
    run(agent, "two")
    notice = set_reasoning(agent.caller, agent.sessions, BUDGET)
    assert "invalidates the cached messages" in notice.text
    assert "tools and system stay cached" in notice.text
    events = run(agent, "three")
    usage = [e for e in events if isinstance(e, UsageEvent)][0]
    assert usage.miss_cause == "thinking_changed"
    assert "thinking off -> thinking budget=2048" in usage.miss_detail
    record = fake_provider.last
    assert 0 < record.cache_read < record.prompt_tokens  # tools + system still read
    report = build_report(agent.store, agent.session_id)
    assert report.misses[-1].cause == "thinking_changed"
    assert "tools and system still read" in report.misses[-1].explanation


def test_grace_call_with_thinking_on(fake_provider, hermes_home, tmp_path):
    (tmp_path / "seed.txt").write_text("alpha\n")
    agent = make_agent(fake_provider, hermes_home, tmp_path, reasoning=Reasoning("budget", 9000),
                       max_iterations=2)
    fake_provider.script(*read_calls(3), Reply(text="unused"))
    events = list(agent.run_turn("loop"))
    done = events[-1]
    assert isinstance(done, Done) and done.reason == "max_iterations"
    grace = fake_provider.requests[2]
    assert grace.status == 200 and grace.body["max_tokens"] > 9000
    assert "tool_choice" not in grace.body and "temperature" not in grace.body
    stored = agent.conversation.messages[-1]
    assert not stored.tool_calls and stored.reasoning  # its thinking kept with it


def test_fallback_model_without_adaptive_gets_thinking_off(fake_provider, hermes_home, tmp_path):
    from agent.retry import RetryPolicy
    from tests.fakes import Error

    agent = make_agent(fake_provider, hermes_home, tmp_path, reasoning=Reasoning("adaptive"),
                       fallback_model="claude-haiku-4-5", retry=RetryPolicy(attempts=1))
    fake_provider.script(Error(529), Reply(text="from the fallback"))
    run(agent, "hi")
    first, fallback = fake_provider.requests
    assert first.body["thinking"] == {"type": "adaptive"}
    assert fallback.status == 200 and "thinking" not in fallback.body
