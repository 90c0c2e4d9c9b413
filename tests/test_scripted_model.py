"""The scripted model itself (fast tier): what it answers, records, refuses and bills."""

from __future__ import annotations

import threading

import pytest

from agent.cancel import CancelToken
from agent.errors import ProviderError, TransientProviderError
from agent.events import Done, ErrorEvent, Notice, TextDelta, UsageEvent
from agent.messages import Message, Request, SystemBlock
from agent.retry import RetryPolicy
from agent.usage import Usage
from tests.fakes import Reply, ToolCall
from tests.fakes.scripted import Answer, Fail, Hold, ScriptedModel
from tests.helpers import MODEL, run, scripted_agent

NO_WAIT = RetryPolicy(attempts=3, base=0.0, cap=0.0)


def test_records_requests_and_maps_them_like_the_adapter(hermes_home, tmp_path):
    model = ScriptedModel(Reply(tool_calls=[ToolCall("todo", {})]), Reply(text="done", chunks=2))
    agent = scripted_agent(model, hermes_home, tmp_path)
    events = run(agent, "plan it")
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["do", "ne"]
    first, second = model.requests
    assert first.messages == [Message("user", "plan it")]
    assert [m.role for m in second.messages] == ["user", "assistant", "tool"]
    assert second.messages[1].tool_calls[0].name == "todo"
    assert model.bodies[1]["messages"][2]["content"][0]["type"] == "tool_result"
    assert [c.status for c in model.calls] == [200, 200] and not model.rejected


def test_answer_usage_reaches_the_events_and_the_store(hermes_home, tmp_path):
    usage = Usage(uncached=10, write_5m=2000, cache_read=0, output=7)
    model = ScriptedModel(Answer(text="hi", usage=usage, response_id="msg_1"),
                          Answer(text="again", usage=Usage(uncached=12, cache_read=2000, output=3)))
    agent = scripted_agent(model, hermes_home, tmp_path)
    first = [e.usage for e in run(agent, "one") if isinstance(e, UsageEvent)]
    assert first == [usage]
    run(agent, "two")
    rows = agent.store.usage_rows(agent.session_id)
    assert [(r["write_5m"], r["cache_read"]) for r in rows] == [(2000, 0), (0, 2000)]
    assert model.requests[1].cache.previous == "msg_1"


def test_transient_errors_are_retried_and_fatal_ones_reported(hermes_home, tmp_path):
    model = ScriptedModel(TransientProviderError("overloaded", status=529), Reply(text="fine"))
    agent = scripted_agent(model, hermes_home, tmp_path, retry=NO_WAIT)
    events = run(agent, "hi")
    assert any(isinstance(e, Notice) and "overloaded" in e.text for e in events)
    assert [c.status for c in model.calls] == [529, 200]
    model.script(Fail(TransientProviderError("gone", status=500), after_chunks=1),
                 *[TransientProviderError("gone", status=500)] * 2)
    events = list(agent.run_turn("again"))
    assert any(isinstance(e, ErrorEvent) and "gone" in e.message for e in events)
    assert [c.status for c in model.calls][-3:] == [500, 500, 500]


def test_a_request_the_api_would_refuse_is_refused():
    model = ScriptedModel(Reply(text="never sent"))
    bad = Request(MODEL, [SystemBlock("sys")], [Message("assistant", "I speak first")])
    with pytest.raises(ProviderError, match="roles must alternate") as caught:
        list(model.stream(bad, CancelToken()))
    assert caught.value.status == 400 and model.calls[0].status == 400
    assert model.rejected and model.pending == 1  # the script item was not used


def test_context_window_refuses_a_prompt_that_is_too_long(hermes_home, tmp_path):
    model = ScriptedModel(context_window=10)
    agent = scripted_agent(model, hermes_home, tmp_path)
    events = list(agent.run_turn("hi"))
    assert model.calls[0].status == 400
    assert any(isinstance(e, ErrorEvent) for e in events) or any(
        isinstance(e, Notice) and "too long" in e.text for e in events)


def test_hold_is_released_or_cancelled_by_events(hermes_home, tmp_path):
    hold = Hold(first="wait ", then=Reply(text="there"))
    model = ScriptedModel(hold)
    agent = scripted_agent(model, hermes_home, tmp_path)
    events: list = []
    worker = threading.Thread(target=lambda: events.extend(agent.run_turn("go", CancelToken())))
    worker.start()
    assert hold.started.wait(10) and not hold.finished.is_set()
    hold.release()
    worker.join(10)
    assert isinstance(events[-1], Done) and events[-1].answer == "wait there"


@pytest.mark.parametrize("name", ["anthropic", "openai"])
def test_close_is_counted(name, hermes_home, tmp_path):
    model = ScriptedModel(name=name)
    agent = scripted_agent(model, hermes_home, tmp_path)
    run(agent, "hi")
    agent.close()
    assert model.closed == 1
