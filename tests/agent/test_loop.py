"""The loop through the real agent and the real SDK against the fake server."""

from __future__ import annotations

import threading
import time

from agent.cancel import CancelToken
from agent.events import Done, ErrorEvent, TextDelta, ToolFinished, ToolStarted, UsageEvent
from tests.agent.test_prompt_stability import make_agent, run
from tests.fakes import Reply, ToolCall


def test_max_iterations_ends_with_a_grace_summary(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path, max_iterations=2)
    fake_provider.responder = lambda rec: (
        Reply(text="summary for you") if "iterations allowed" in str(rec.body["messages"][-1])
        else Reply(tool_calls=[ToolCall("todo", {})]))
    events = list(agent.run_turn("loop forever"))
    done = events[-1]
    assert isinstance(done, Done) and done.reason == "max_iterations"
    assert done.answer == "summary for you"
    records = fake_provider.requests
    assert len(records) == 3 and all(r.status == 200 for r in records)
    # the grace call keeps the same tools (no cache break) and asks for a summary
    assert records[2].body["tools"] == records[1].body["tools"]
    assert records[2].cache_read > 0


def test_grace_reply_with_tool_calls_is_stored_without_them(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path, max_iterations=1)
    fake_provider.responder = lambda rec: Reply(text="still going", tool_calls=[ToolCall("todo", {})])
    events = list(agent.run_turn("go"))
    assert events[-1].reason == "max_iterations"
    last = agent.conversation.messages[-1]
    assert last.role == "assistant" and not last.tool_calls and last.content == "still going"
    fake_provider.responder = None
    run(agent, "next")  # history is valid: the fake accepts it
    assert fake_provider.requests[-1].status == 200


def test_cancel_mid_stream_leaves_valid_history(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    fake_provider.script(Reply(text="slow " * 100, delay=0.05, chunks=100))
    cancel = CancelToken()
    events = []

    def consume():
        events.extend(agent.run_turn("tell me a long story", cancel))

    worker = threading.Thread(target=consume)
    worker.start()
    while not any(isinstance(e, TextDelta) for e in events):
        time.sleep(0.01)
    started = time.monotonic()
    cancel.cancel()
    worker.join(5)
    assert time.monotonic() - started < 2.0  # the 5 s stream was aborted, not drained
    assert isinstance(events[-1], Done) and events[-1].reason == "cancelled"
    run(agent, "short question")
    assert fake_provider.requests[-1].status == 200
    roles = [m.role for m in agent.conversation.messages]
    assert roles == ["user", "assistant", "user", "assistant"]


def test_cancel_during_tools_answers_every_call(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path, yolo=True)
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": "sleep 1"}),
                                           ToolCall("terminal", {"command": "echo second"})]))
    cancel = CancelToken()
    events = []
    worker = threading.Thread(target=lambda: events.extend(agent.run_turn("run", cancel)))
    worker.start()
    while not any(isinstance(e, ToolStarted) for e in events):
        time.sleep(0.01)
    cancel.cancel()
    worker.join(10)
    assert events[-1].reason == "cancelled"
    run(agent, "after")
    assert fake_provider.requests[-1].status == 200  # every tool_use has a tool_result


def test_parallel_read_only_tools_and_ordered_results(fake_provider, hermes_home, tmp_path):
    for i in range(4):
        (tmp_path / f"f{i}.txt").write_text(f"content {i}")
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    calls = [ToolCall("read_file", {"path": f"f{i}.txt"}) for i in range(4)]
    fake_provider.script(Reply(tool_calls=calls), Reply(text="read them"))
    events = run(agent, "read all")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.ok for e in finished] == [True] * 4
    results = fake_provider.requests[1].body["messages"][2]["content"]
    assert [b["tool_use_id"] for b in results] == [c["id"] for c in fake_provider.requests[1].body["messages"][1]["content"] if c["type"] == "tool_use"]
    assert "content 3" in str(results[3])


def test_tool_error_is_a_result_not_a_crash(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "missing.txt"}),
                                           ToolCall("no_such_tool", {})]),
                         Reply(text="handled"))
    events = run(agent, "go")
    assert [e.ok for e in events if isinstance(e, ToolFinished)] == [False, False]
    blocks = fake_provider.requests[1].body["messages"][2]["content"]
    assert all(b.get("is_error") for b in blocks)
    assert "unknown tool 'no_such_tool'" in str(blocks[1])


def test_provider_error_event_and_history_stays_valid(fake_provider, hermes_home, tmp_path):
    from tests.fakes import Error

    agent = make_agent(fake_provider, hermes_home, tmp_path)
    fake_provider.script(Error(400, message="bad thing"))
    events = list(agent.run_turn("hi"))
    assert any(isinstance(e, ErrorEvent) and "bad thing" in e.message for e in events)
    run(agent, "again")
    assert fake_provider.requests[-1].status == 200


def test_delegate_runs_children_in_parallel_and_counts_their_usage(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    children = [ToolCall("delegate_task", {"goal": f"subtask {i}"}) for i in range(4)]

    def respond(rec):
        system = str(rec.body.get("system"))
        if "Delegated task" in system:
            return Reply(text="child report", delay=0.2, chunks=2)
        if len(rec.body["messages"]) == 1:
            return Reply(tool_calls=children)
        return Reply(text="all done")

    fake_provider.responder = respond
    events = run(agent, "split the work")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    # the 4th was refused while 3 children were running: they ran concurrently
    assert sum(e.ok for e in finished) == 3
    refused = [e for e in finished if not e.ok]
    assert len(refused) == 1 and "at most 3" in refused[0].summary
    child_requests = [r for r in fake_provider.requests if "Delegated task" in str(r.body.get("system"))]
    assert len(child_requests) == 3
    # children send the parent's tools byte for byte (delegate_task and memory are refused
    # when called: tests/agent/test_prefix_sharing.py), markers aside
    def bare(tools):
        return [{k: v for k, v in t.items() if k != "cache_control"} for t in tools]
    assert bare(child_requests[0].body["tools"]) == bare(fake_provider.requests[0].body["tools"])
    rows = agent.store.usage_rows(agent.session_id)
    assert sum(1 for r in rows if (r.get("miss_detail") or "").startswith("sub-agent")) == 3
    usage_events = [e for e in events if isinstance(e, UsageEvent)]
    assert len(usage_events) == 2 + 3  # the children's calls count in this turn's totals
    assert sum(e.usage.prompt_tokens for e in usage_events) == sum(
        r.prompt_tokens for r in fake_provider.requests)


def test_close_kills_background_processes_the_session_left(fake_provider, hermes_home, tmp_path):
    import os

    agent = make_agent(fake_provider, hermes_home, tmp_path)
    pidfile = tmp_path / "bg.pid"
    fake_provider.script(
        Reply(tool_calls=[ToolCall("terminal", {"command": f"sleep 300 & echo $! > {pidfile}"})]),
        Reply(text="started"))
    run(agent, "start a background job")
    pid = int(pidfile.read_text())
    os.kill(pid, 0)  # alive after the tool call returned
    agent.close()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the background job outlived the agent")


def test_a_crashing_tool_is_an_error_result_not_a_dead_turn(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": "echo a\x00b"}),
                                           ToolCall("read_file", {"path": "x", "offset": 1e300})]),
                         Reply(text="recovered"))
    events = run(agent, "go")
    assert events[-1].answer == "recovered"
    assert [e.ok for e in events if isinstance(e, ToolFinished)] == [False, False]
