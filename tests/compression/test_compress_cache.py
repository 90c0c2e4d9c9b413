"""The summary call is the session's own request plus an instruction, so it reads the
session's cache: request shape (fast tier, scripted model validated like the API) and
what the fake Anthropic server bills for it (wire)."""

from __future__ import annotations

import re

import pytest

from agent.compression.request import INSTRUCTION_MARK
from agent.cost import pricing
from agent.events import ErrorEvent, Notice
from agent.messages import Reasoning
from agent.usage import Usage
from tests.fakes import Reply, ToolCall
from tests.fakes.cache import strip_cache_control
from tests.helpers import is_summary_call as is_summary

MODEL = "claude-sonnet-5"
BIG = {MODEL: 200_000}


def _main_calls(s) -> list:
    return [c for c in s.calls if not is_summary(c.body)]


def _grown(session, turns: int, **config):
    s = session(context_windows=BIG, **config)
    for _ in range(turns):
        s.tool_turn()
    return s


def _notices(events) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


def test_summary_request_is_the_session_request_plus_one_instruction(session):
    s = _grown(session, 8)  # the last 3 exchanges fit in half the history: they stay
    previous = _main_calls(s)[-1].body
    events = list(s.agent.compress())
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    (call,) = s.summary_requests()
    body = call.body
    same, before = strip_cache_control(body), strip_cache_control(previous)
    for key in ("model", "tools", "system", "tool_choice", "thinking", "max_tokens"):
        assert same.get(key) == before.get(key), key
    # the previous request's messages are a byte prefix; then the answer, then the ask
    assert same["messages"][:len(before["messages"])] == before["messages"]
    ask = body["messages"][-1]
    assert ask["role"] == "user" and len(body["messages"]) == len(before["messages"]) + 2
    (text,) = ask["content"]
    assert text["text"].startswith(INSTRUCTION_MARK) and "cache_control" not in text
    assert "and the last 12 messages, from the user message 'request 5: please" in text["text"]
    # breakpoints: where the previous request wrote (read now), none after it
    marked = [i for i, m in enumerate(body["messages"]) if "cache_control" in str(m)]
    assert marked == [len(before["messages"]) - 1]
    assert "cache_control" in str(body["system"])
    assert "Summary call with" not in " ".join(_notices(events))  # the preview says that
    assert "read from the session's cache" in _notices(events)[0]


def test_preview_states_the_read_and_after_a_pause_the_rewrite(session):
    now = [1_000.0]
    s = session(context_windows=BIG, clock=lambda: now[0])
    for _ in range(6):
        s.tool_turn()
    (hot,) = list(s.agent.compress(preview=True))
    assert "read from the session's cache" in hot.text and "est. $" in hot.text
    now[0] += 301  # longer than the 5-minute entry
    (cold,) = list(s.agent.compress(preview=True))
    assert "cache expired" in cold.text and "would rewrite" in cold.text
    assert "read from the session's cache" not in cold.text
    list(s.agent.compress())
    (call,) = s.summary_requests()
    assert "tools" not in call.body  # a cold cache: the smaller pruned transcript


def test_dear_cache_reads_send_the_pruned_transcript(session):
    """Where a cache read costs half the input price (as on GPT-4o), re-reading the
    whole history costs more than twice the pruned transcript: that is sent instead."""
    dear = {MODEL: {"input": 3.0, "output": 15.0, "cache_read": 1.5}}
    s = _grown(session, 6, prices=dear)
    (preview,) = list(s.agent.compress(preview=True))
    assert "the pruned transcript" in preview.text and "cache price costs more" in preview.text
    list(s.agent.compress())
    (call,) = s.summary_requests()
    assert "tools" not in call.body


def test_a_tool_call_instead_of_the_notes_is_asked_once_more(session):
    s = _grown(session, 5)
    s.summaries.append(Reply(tool_calls=[ToolCall("read_file", {"path": "x"})]))
    events = list(s.agent.compress())
    first, second = s.summary_requests()
    assert "Do not call any tool now" in str(second.body["messages"][-1])
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    assert s.agent.conversation.messages[1].kind == "summary"
    assert len(s.store.usage_rows(s.agent.session_id)) == 2  # both calls were billed


def test_two_tool_calls_leave_the_session_untouched(session):
    s = _grown(session, 5)
    old = s.snapshot()
    call = Reply(tool_calls=[ToolCall("read_file", {"path": "x"})])
    s.summaries.extend([call, call])
    events = list(s.agent.compress())
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert "called a tool" in error.message and "Nothing was changed" in error.hint
    assert s.snapshot() == old and len(s.summary_requests()) == 2


def test_mid_turn_with_thinking_appends_the_ask_after_the_tool_results(session):
    """Compaction between tool iterations: the history ends with tool results; the
    instruction joins that user turn after them, thinking stays first in its assistant
    turn, and the API's rules accept it (the scripted model validates like the fake)."""
    s = session(context_windows={MODEL: 6000}, compression_threshold=0.5,
                reasoning=Reasoning("budget", 1024))
    first_id = s.agent.session_id
    s.tool_turn()
    s.tool_turn()
    s.tool_turn(reads=8)
    assert s.agent.session_id != first_id
    assert all(c.status == 200 for c in s.calls)
    (call,) = s.summary_requests()
    last = call.body["messages"][-1]["content"]
    assert [b["type"] for b in last][-2:] == ["tool_result", "text"]
    assert last[-1]["text"].startswith(INSTRUCTION_MARK)
    assistant = call.body["messages"][-2]
    assert assistant["content"][0]["type"] == "thinking"
    assert call.body["thinking"] == {"type": "enabled", "budget_tokens": 1024}


def test_issue_session_summary_reads_the_cache(wire_session):
    """11 turns with a tool call, then /compress, against the fake Anthropic API: the
    summary call reads >= 80% of its prompt and costs <= 0.35x its uncached price; the
    child's first request reads the shared prefix, as the notice said."""
    s = wire_session(context_windows=BIG, toolsets=None)
    for _ in range(11):
        s.tool_turn()
    events = list(s.agent.compress())
    (call,) = s.summary_requests()
    assert call.status == 200
    assert call.cache_read >= 0.8 * call.prompt_tokens, (call.cache_read, call.prompt_tokens)
    split = (call.usage or {}).get("cache_creation") or {}
    usage = Usage(uncached=call.uncached, write_5m=split.get("ephemeral_5m_input_tokens", 0),
                  write_1h=split.get("ephemeral_1h_input_tokens", 0),
                  cache_read=call.cache_read, output=call.usage["output_tokens"])
    cost, full = pricing.cost(usage, MODEL), pricing.uncached_cost(usage, MODEL)
    assert cost <= 0.35 * full, (cost, full)
    assert call.cache_write == 0  # the instruction is never written
    said = re.search(r"reads the tools and shared system blocks \(~([\d,]+) tokens\)",
                     _notices(events)[-1])
    assert said, _notices(events)[-1]
    seam = len(s.calls)
    s.tool_turn()  # the child goes on, reading the shared prefix the parent wrote
    first = s.calls[seam]
    assert first.status == 200
    assert abs(first.cache_read - int(said.group(1).replace(",", ""))) <= 0.1 * first.cache_read


def _openai_session(fake, tmp_path, model: str = "gpt-5.2"):
    from agent.agent import AIAgent
    from agent.config import AgentConfig
    from agent.providers.base import ProviderSettings
    from memory.store import SessionStore

    home, cwd = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    cwd.mkdir()
    store = SessionStore(home / "state.db")
    settings = ProviderSettings("openai", model, "test", fake.openai_base_url)
    agent = AIAgent(AgentConfig(provider=settings, home=home, cwd=cwd, toolsets=("file",),
                                context_windows={model: 200_000}), store)
    for n in range(11):
        (cwd / f"f{n}.txt").write_text("\n".join(f"line {i} of part {n}" for i in range(40)))
        fake.script(Reply(text=f"reading f{n}.txt",
                          tool_calls=[ToolCall("read_file", {"path": f"f{n}.txt"})]),
                    Reply(text=f"answer {n}: fine"))
        list(agent.run_turn(f"request {n}: check part {n}"))
    return agent, store


@pytest.mark.wire
@pytest.mark.parametrize("style", ["openai", "none"])
def test_openai_chat_summary_reads_the_automatic_cache(tmp_path, style):
    """Chat Completions: the same prefix and prompt_cache_key, so the automatic cache is
    read; a server that reports no cache data gets "unknown", never a guess."""
    from tests.fakes import FakeProvider

    with FakeProvider(openai_usage_style=style) as fake:
        agent, store = _openai_session(fake, tmp_path)
        try:
            previous = fake.requests[-1].body
            (preview,) = list(agent.compress(preview=True))
            fake.script(Reply(text="## Goal\nCheck the parts."))
            list(agent.compress())
            call = fake.requests[-1]
        finally:
            agent.close()
            store.close()
    assert call.body["tools"] == previous["tools"]
    assert call.body["messages"][:len(previous["messages"])] == previous["messages"]
    assert call.body.get("prompt_cache_key") == previous.get("prompt_cache_key")
    if style == "openai":
        assert call.cache_read >= 0.8 * call.prompt_tokens
        assert "read from the session's cache" in preview.text
    else:
        assert "cache reads unknown" in preview.text and "cost unknown" in preview.text
