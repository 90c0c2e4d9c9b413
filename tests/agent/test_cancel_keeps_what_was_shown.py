"""Ctrl-C keeps in history what the user saw (and only that), and counts the output
tokens that arrived: a cut stream reports none (fast tier, scripted model)."""

from __future__ import annotations

import threading

from agent.cancel import CancelToken
from agent.events import Done, Notice, TextDelta, UsageEvent
from tests.fakes import Reply
from tests.fakes.scripted import Hold, ScriptedModel
from tests.helpers import run, scripted_agent

LINES = "".join(f"line {i} of a slow answer\n" for i in range(38))


def test_a_slow_stream_cut_by_ctrl_c_keeps_the_lines_shown_and_counts_them(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path)
    hold = Hold(first=LINES)
    model.script(hold)
    cancel = CancelToken()
    events: list = []
    worker = threading.Thread(target=lambda: events.extend(agent.run_turn("a story", cancel)))
    worker.start()
    assert hold.started.wait(10)
    cancel.cancel()
    worker.join(10)
    assert not worker.is_alive() and events[-1] == Done("", "cancelled")
    kept = agent.conversation.messages[-1]
    assert kept.role == "assistant" and kept.content.startswith(LINES)
    assert "cancelled by the user" in kept.content and "before the model answered" not in kept.content
    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert len(usage) == 1 and usage[0].usage.output >= len(LINES) // 4 - 1  # not 1
    assert any(isinstance(e, Notice) and "estimated" in e.text for e in events)
    assert agent.store.usage_rows(agent.session_id)[-1]["output"] == usage[0].usage.output
    run(agent, "go on")
    assert not model.rejected
    agent.close()


def test_a_reply_that_completed_while_cancelling_keeps_only_what_was_shown(hermes_home, tmp_path):
    model = ScriptedModel()
    agent = scripted_agent(model, hermes_home, tmp_path)
    model.script(Reply(text="x" * 120_000, chunks=40))
    cancel = CancelToken()
    events: list = []
    shown = 0
    for event in agent.run_turn("a long answer", cancel):
        events.append(event)
        if isinstance(event, TextDelta):
            shown += len(event.text)
        if isinstance(event, UsageEvent):  # the stream is complete; the screen is behind
            cancel.cancel(shown=3_000)
    assert events[-1] == Done("", "cancelled")
    kept = agent.conversation.messages[-1]
    assert kept.content.startswith("x" * 3_000) and "x" * 3_001 not in kept.content
    assert [m.role for m in agent.conversation.messages] == ["user", "assistant"]
    run(agent, "next")
    assert len(model.requests[-1].messages[1].content) < 3_100  # no 120,000 chars re-sent
    agent.close()
