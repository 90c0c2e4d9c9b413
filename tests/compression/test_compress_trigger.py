"""The automatic trigger: threshold after/before a turn, and the prompt-too-long retry."""

from __future__ import annotations

from agent.compression.trigger import CONTINUE
from agent.errors import AuthenticationError
from agent.events import Done, ErrorEvent, Notice
from agent.sessions.conversation import repaired
from tests.fakes import Reply, ToolCall
from tests.helpers import is_summary_call as is_summary

MODEL = "claude-sonnet-5"


def _notices(events, word: str) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice) and word in e.text]


def test_threshold_compresses_after_the_response(wire_session):
    s = wire_session(context_windows={MODEL: 6000}, compression_threshold=0.5)
    first_id = s.agent.session_id
    for _ in range(14):
        events = s.tool_turn()
        assert isinstance(events[-1], Done) and events[-1].reason == "answer"
        if s.agent.session_id != first_id:
            break
    assert _notices(events, "Compressed the conversation (auto)")
    assert s.store.get_session(s.agent.session_id)["parent_id"] == first_id
    assert not s.agent.compactor.should_compress(s.agent.session)
    history = s.agent.conversation.messages
    assert history[1].kind == "summary" and repaired(history) == history
    seam = len(s.calls)
    s.tool_turn()
    first, second = [r for r in s.calls[seam:] if not is_summary(r.body)][:2]
    assert second.cache_read >= first.prompt_tokens - 1  # the rebuilt prefix is read again
    assert all(r.status == 200 for r in s.calls)


def test_failed_auto_compression_is_retried_before_the_next_turn(session):
    s = session(context_windows={MODEL: 6000}, compression_threshold=0.5)
    first_id = s.agent.session_id
    for _ in range(14):  # every attempt fails ...
        if s.agent.compactor.should_compress(s.agent.session):
            break
        s.summaries.append(AuthenticationError("Error code: 401 - invalid x-api-key", status=401))
        events = s.tool_turn()
    assert s.agent.session_id == first_id  # ... and leaves the session as it was
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert errors and "Compression failed" in errors[0].message
    assert events[-1].reason == "answer"  # the answer itself is kept
    s.summaries.clear()

    events = s.tool_turn()  # the check before the turn compresses first
    assert _notices(events, "Compressed the conversation (auto)")
    assert s.agent.session_id != first_id
    user_texts = [m.content for m in s.agent.conversation.messages if m.role == "user"]
    assert user_texts[-1].startswith(f"request {s.turns - 1}:")  # sent after the seam
    assert all(r.status == 200 for r in s.calls if not is_summary(r.body))


def _grown_to_the_limit(session, room: int):
    s = session()
    for _ in range(6):
        s.tool_turn()
    s.limit_context(room)
    return s


def test_prompt_too_long_compresses_and_retries_the_turn(session):
    s = _grown_to_the_limit(session, room=40)
    old_id = s.agent.session_id
    text = "one more thing: " + "please also look at the lexer " * 12
    s.replies.extend([Reply(text="(never seen)"), Reply(text="retried answer")])
    events = list(s.agent.run_turn(text))

    assert not [e for e in events if isinstance(e, ErrorEvent)]
    assert events[-1] == Done("retried answer", "answer")
    assert _notices(events, "prompt was too long")
    statuses = [r.status for r in s.calls[-3:]]
    assert statuses == [400, 200, 200]
    history = s.agent.conversation.messages
    assert s.agent.session_id != old_id and history[1].kind == "summary"
    assert [m.content for m in history[-2:]] == [text, "retried answer"]
    assert [m.content for m in history].count(text) == 1
    old = [m["content"] for m in s.store.messages(old_id)]
    assert old[-2] == text and old[-1].startswith("[no reply")  # kept, not dropped


def test_prompt_too_long_after_tools_keeps_them_and_continues(session):
    s = _grown_to_the_limit(session, room=150)
    (s.cwd / "big.txt").write_text("\n".join(f"big line {i} of the grammar" for i in range(40)))
    s.replies.extend([Reply(tool_calls=[ToolCall("read_file", {"path": "big.txt"})]),
                      Reply(text="(never seen)"), Reply(text="continued answer")])
    events = list(s.agent.run_turn("read big.txt"))

    assert events[-1] == Done("continued answer", "answer")
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    history = s.agent.conversation.messages
    kinds = [(m.role, m.kind) for m in history[-5:]]
    assert kinds == [("user", ""), ("assistant", ""), ("tool", ""), ("user", "continue"),
                     ("assistant", "")]
    assert history[-2].content == CONTINUE and history[-3].content.count("big line") == 40
    assert repaired(history) == history
    assert s.last.status == 200


def test_long_tool_loop_compresses_mid_turn_and_keeps_tool_state(session):
    """One user turn with many tool iterations crosses the threshold between iterations:
    the history is compressed mid-turn, the loop continues in the new session, the tools'
    per-session state (todo list) survives, and every request is valid."""
    s = session(context_windows={MODEL: 6000}, compression_threshold=0.5, toolsets=("file", "todo"))
    first_id = s.agent.session_id
    s.tool_turn()  # a first exchange, so there is a middle to summarise
    todo = Reply(tool_calls=[ToolCall("todo", {"todos": [
        {"id": "1", "content": "check the parser", "status": "in_progress"}]})])
    reads = []
    for k in range(10):
        name = f"long_{k}.txt"
        (s.cwd / name).write_text("\n".join(f"line {i} of part {k}" for i in range(40)))
        reads.append(Reply(text=f"reading {name}", tool_calls=[ToolCall("read_file", {"path": name})]))
    s.replies.extend([todo, *reads, Reply(tool_calls=[ToolCall("todo", {})]), Reply(text="all read")])
    events = list(s.agent.run_turn("read every part of the parser"))
    assert isinstance(events[-1], Done) and events[-1].answer == "all read"
    assert _notices(events, "mid-turn")
    assert s.agent.session_id != first_id
    assert all(r.status == 200 for r in s.calls)
    last_tool_call = [r for r in s.calls if not is_summary(r.body)][-1]
    assert "check the parser" in str(last_tool_call.body["messages"][-1])  # todo list survived
    assert repaired(s.agent.conversation.messages) == s.agent.conversation.messages
