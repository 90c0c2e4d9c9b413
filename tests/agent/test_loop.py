"""The loop through the real agent on the in-process scripted model (fast tier); the
delegate test keeps the fake server, since child agents build their own provider."""

from __future__ import annotations

import os
import threading

import pytest

from agent.cancel import CancelToken
from agent.errors import ProviderError
from agent.events import Done, ErrorEvent, ToolFinished, ToolStarted, UsageEvent
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import Hold, ScriptedModel
from tests.helpers import host_pid, make_agent, run, scripted_agent, wait_until


@pytest.fixture
def model() -> ScriptedModel:
    return ScriptedModel()


@pytest.fixture
def agent(model, hermes_home, tmp_path):
    made = scripted_agent(model, hermes_home, tmp_path)
    yield made
    made.close()


def test_max_iterations_ends_with_a_grace_summary(model, hermes_home, tmp_path):
    agent = scripted_agent(model, hermes_home, tmp_path, max_iterations=2)
    model.responder = lambda request: (
        Reply(text="summary for you") if "iterations allowed" in request.messages[-1].wire_text
        else Reply(tool_calls=[ToolCall("todo", {})]))
    events = list(agent.run_turn("loop forever"))
    done = events[-1]
    assert isinstance(done, Done) and done.reason == "max_iterations"
    assert done.answer == "summary for you"
    assert len(model.requests) == 3 and not model.rejected
    # the grace call keeps the same tools, system and cache markers (no cache break)
    grace, before = model.requests[2], model.requests[1]
    assert grace.tools == before.tools and grace.system == before.system
    assert model.bodies[2]["tools"] == model.bodies[1]["tools"]


def test_grace_reply_with_tool_calls_is_stored_without_them(model, hermes_home, tmp_path):
    agent = scripted_agent(model, hermes_home, tmp_path, max_iterations=1)
    model.responder = lambda request: Reply(text="still going", tool_calls=[ToolCall("todo", {})])
    events = list(agent.run_turn("go"))
    assert events[-1].reason == "max_iterations"
    last = agent.conversation.messages[-1]
    assert last.role == "assistant" and not last.tool_calls and last.content == "still going"
    model.responder = None
    run(agent, "next")  # history is valid: the API's pairing rules accept it
    assert not model.rejected


def test_cancel_mid_stream_leaves_valid_history(model, agent):
    hold = Hold(first="slow ")
    model.script(hold)
    cancel = CancelToken()
    events: list = []
    worker = threading.Thread(target=lambda: events.extend(agent.run_turn("a long story", cancel)))
    worker.start()
    assert hold.started.wait(10)
    cancel.cancel()  # the stream is aborted, not drained: the hold waits for nothing else
    worker.join(10)
    assert not worker.is_alive()
    assert isinstance(events[-1], Done) and events[-1].reason == "cancelled"
    run(agent, "short question")
    assert not model.rejected
    roles = [m.role for m in agent.conversation.messages]
    assert roles == ["user", "assistant", "user", "assistant"]


@pytest.mark.wire  # the terminal tool runs a shell
def test_cancel_during_tools_answers_every_call(model, hermes_home, tmp_path):
    agent = scripted_agent(model, hermes_home, tmp_path, yolo=True)
    model.script(Reply(tool_calls=[ToolCall("terminal", {"command": "sleep 5"}),
                                   ToolCall("terminal", {"command": "echo second"})]))
    cancel = CancelToken()
    events: list = []
    worker = threading.Thread(target=lambda: events.extend(agent.run_turn("run", cancel)))
    worker.start()
    wait_until(lambda: any(isinstance(e, ToolStarted) for e in events), what="a tool to start")
    cancel.cancel()
    worker.join(10)
    assert not worker.is_alive() and events[-1].reason == "cancelled"
    run(agent, "after")
    assert not model.rejected  # every tool_use has a tool_result
    agent.close()


def test_parallel_read_only_tools_and_ordered_results(model, agent, tmp_path):
    for i in range(4):
        (tmp_path / f"f{i}.txt").write_text(f"content {i}")
    calls = [ToolCall("read_file", {"path": f"f{i}.txt"}) for i in range(4)]
    model.script(Reply(tool_calls=calls), Reply(text="read them"))
    events = run(agent, "read all")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.ok for e in finished] == [True] * 4
    body = model.bodies[1]
    results = body["messages"][2]["content"]
    uses = [c["id"] for c in body["messages"][1]["content"] if c["type"] == "tool_use"]
    assert [b["tool_use_id"] for b in results] == uses
    assert "content 3" in str(results[3])


def test_tool_error_is_a_result_not_a_crash(model, agent):
    model.script(Reply(tool_calls=[ToolCall("read_file", {"path": "missing.txt"}),
                                   ToolCall("no_such_tool", {})]),
                 Reply(text="handled"))
    events = run(agent, "go")
    assert [e.ok for e in events if isinstance(e, ToolFinished)] == [False, False]
    blocks = model.bodies[1]["messages"][2]["content"]
    assert all(b.get("is_error") for b in blocks)
    assert "unknown tool 'no_such_tool'" in str(blocks[1])


def test_provider_error_event_and_history_stays_valid(model, agent):
    model.script(ProviderError("Error code: 400 - bad thing", status=400))
    events = list(agent.run_turn("hi"))
    assert any(isinstance(e, ErrorEvent) and "bad thing" in e.message for e in events)
    run(agent, "again")
    assert not model.rejected and len(model.requests) == 2


def test_delegate_runs_children_in_parallel_and_counts_their_usage(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    children = [ToolCall("delegate_task", {"goal": f"subtask {i}"}) for i in range(5)]

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
    # four run at once (agent/loop.py max_parallel = delegate's MAX_CHILDREN); the 5th
    # takes the first free slot: none is refused
    assert sum(e.ok for e in finished) == 5
    child_requests = [r for r in fake_provider.requests if "Delegated task" in str(r.body.get("system"))]
    assert len(child_requests) == 5
    # children send the parent's tools byte for byte (delegate_task and memory are refused
    # when called: tests/agent/test_prefix_sharing.py), markers aside
    def bare(tools):
        return [{k: v for k, v in t.items() if k != "cache_control"} for t in tools]
    assert bare(child_requests[0].body["tools"]) == bare(fake_provider.requests[0].body["tools"])
    rows = agent.store.usage_rows(agent.session_id)
    assert sum(1 for r in rows if (r.get("miss_detail") or "").startswith("sub-agent")) == 5
    usage_events = [e for e in events if isinstance(e, UsageEvent)]
    assert len(usage_events) == 2 + 5  # the children's calls count in this turn's totals
    assert sum(e.usage.prompt_tokens for e in usage_events) == sum(
        r.prompt_tokens for r in fake_provider.requests)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.wire  # the terminal tool runs a shell
def test_close_kills_background_processes_the_session_left(model, hermes_home, tmp_path):
    agent = scripted_agent(model, hermes_home, tmp_path)
    pidfile = tmp_path / "bg.pid"
    model.script(
        Reply(tool_calls=[ToolCall("terminal", {"command": f"sleep 300 & echo $! > {pidfile}"})]),
        Reply(text="started"))
    run(agent, "start a background job")
    pid = host_pid(agent.session.tools, int(pidfile.read_text()))  # its session's PID namespace
    assert pid is not None and not _gone(pid)  # alive after the tool call returned
    agent.close()
    wait_until(lambda: _gone(pid), timeout=30, what="the background job to die with the agent")


@pytest.mark.wire  # the terminal tool runs a shell (which refuses the NUL byte)
def test_a_crashing_tool_is_an_error_result_not_a_dead_turn(model, agent):
    model.script(Reply(tool_calls=[ToolCall("terminal", {"command": "echo a\x00b"}),
                                   ToolCall("read_file", {"path": "x", "offset": 1e300})]),
                 Reply(text="recovered"))
    events = run(agent, "go")
    assert events[-1].answer == "recovered"
    assert [e.ok for e in events if isinstance(e, ToolFinished)] == [False, False]
