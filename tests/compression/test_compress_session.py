"""Manual compression of a real agent on the scripted model; the cache read after the
seam is checked against the fake Anthropic server."""

from __future__ import annotations

import pytest

from agent.compression.prompt import HEADINGS, SUMMARY_PREFIX
from agent.errors import AuthenticationError, ProviderError
from agent.events import ErrorEvent, Notice, UsageEvent
from agent.sessions.conversation import repaired
from tests.fakes import Reply
from tests.helpers import tokens_through

MODEL = "claude-sonnet-5"


def _grown(session, turns: int = 6):
    s = session()
    for _ in range(turns):
        s.tool_turn()
    return s


def _text(record) -> str:
    return "\n".join(b["text"] for m in record.body["messages"] for b in m["content"])


def test_compress_rewrites_into_a_child_session(wire_session):
    s = _grown(wire_session)
    old = s.snapshot()
    events = list(s.agent.compress(focus="the tokenizer edge cases"))

    assert not [e for e in events if isinstance(e, ErrorEvent)]
    final = [e for e in events if isinstance(e, Notice)][-1].text
    assert "rewrites the cache" in final and "$" in final and "->" in final
    assert any(isinstance(e, UsageEvent) for e in events)

    # the summary request: template, middle text, digests, focus, no tools
    (summary_call,) = s.summary_requests()
    text = _text(summary_call)
    assert "tools" not in summary_call.body and "tool_choice" not in summary_call.body
    for heading in HEADINGS:
        assert f"## {heading}" in text
    assert "request 1: please check part 1" in text  # the middle's text
    assert "read_file(" in text and "40 lines" in text  # one-line digest ...
    assert "secret-1-0-39" not in text  # ... instead of the whole output
    assert "the tokenizer edge cases" in text

    # lineage: a new child row; the old session untouched
    new_id = s.agent.session_id
    assert new_id != old["session_id"]
    assert s.store.get_session(new_id)["parent_id"] == old["session_id"]
    assert s.store.messages(old["session_id"]) == old["messages"]
    assert s.store.get_session(old["session_id"])["system_prompt"] == old["stable"]

    # head + summary + tail, valid as it is
    history = s.agent.conversation.messages
    assert history[0] == old["history"][0]
    assert history[1].kind == "summary" and history[1].role == "user"
    assert history[1].content.startswith(SUMMARY_PREFIX)
    tail = history[2:]
    assert tail == old["history"][-len(tail):]
    assert len(history) < len(old["history"])
    assert repaired(history) == history
    assert [m["kind"] for m in s.store.messages(new_id)][1] == "summary"

    # the summary call is accounted on the new session; /usage spans the seam
    (row,) = s.store.usage_rows(new_id)
    assert row["output"] > 0 and "compression" in row["miss_detail"]
    assert len(s.store.usage_rows(new_id, lineage=True)) == len(old["usage"]) + 1

    # the next turns are accepted (no orphan tool id) and read the cache again
    before = len(s.calls)
    s.tool_turn()
    s.tool_turn()
    after = s.calls[before:]
    assert all(r.status == 200 for r in after)
    first, second = after[0], after[1]
    assert second.cache_read > first.cache_read
    assert second.cache_read >= first.prompt_tokens - 1
    blocks = [text for _, text in s.agent.session.blocks]
    assert [b["text"] for b in first.body["system"]][:len(blocks)] == blocks
    # the restart keeps reading the shared blocks the parent session wrote
    assert len(blocks) >= 2
    assert first.cache_read >= tokens_through(first.body, len(blocks) - 2)
    assert "\n\n".join(blocks) == s.agent.stable != old["stable"]


@pytest.mark.parametrize("outcome", [
    AuthenticationError("Error code: 401 - invalid x-api-key", status=401), Reply(text=""),
    ProviderError("Error code: 400 - refused", status=400)], ids=["401", "empty", "400"])
def test_failed_summary_changes_nothing(session, outcome):
    s = _grown(session, 5)
    old = s.snapshot()
    s.summaries.append(outcome)
    events = list(s.agent.compress())

    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and "Nothing was changed" in errors[0].hint
    assert s.snapshot() == old
    assert s.agent.stable == old["stable"]
    s.tool_turn()  # the session goes on where it was
    assert s.last.status == 200 and s.agent.session_id == old["session_id"]


def test_preview_changes_nothing(session):
    s = session(context_windows={MODEL: 8000})  # room for the cache-reading call
    for _ in range(5):
        s.tool_turn()
    old = s.snapshot()
    requests = len(s.calls)
    events = list(s.agent.compress(preview=True))

    (notice,) = events
    assert isinstance(notice, Notice)
    for part in ("would summarise", "read from the session's cache", "tokens", "est. $",
                 "rewrites the cache"):
        assert part in notice.text
    assert "'request 1: please check part 1 of the parser'" in notice.text  # which turns
    assert len(s.calls) == requests
    assert s.snapshot() == old


def test_nothing_to_compress_says_so(session):
    s = session()
    s.tool_turn(reads=0)
    old = s.snapshot()
    (notice,) = list(s.agent.compress())
    assert "Nothing worth compressing yet" in notice.text
    assert s.snapshot() == old and not s.summary_requests()


def test_second_compression_updates_the_previous_summary(session):
    now = [1_000.0]
    s = session(clock=lambda: now[0])
    for _ in range(6):
        s.tool_turn()
    s.summaries.append("## Goal\nFIRST-SUMMARY-TEXT")
    list(s.agent.compress())
    first_child = s.agent.session_id
    for _ in range(5):
        s.tool_turn()
    s.summaries.append("## Goal\nSECOND-SUMMARY-TEXT")
    now[0] += 3_600  # the cache has expired: the pruned transcript, with the previous summary
    list(s.agent.compress())

    second = _text(s.summary_requests()[-1])
    assert "<previous-summary - update it>\n## Goal\nFIRST-SUMMARY-TEXT" in second
    assert "Update the previous summary" in second
    assert SUMMARY_PREFIX not in second  # not summarised as conversation
    history = s.agent.conversation.messages
    assert [m.kind for m in history].count("summary") == 1
    assert "SECOND-SUMMARY-TEXT" in history[1].content
    lineage = [row["id"] for row in s.store.lineage(s.agent.session_id)]
    assert lineage[1:] == [first_child, s.agent.session_id] and len(lineage) == 3
    s.tool_turn()
    assert s.last.status == 200


def test_manual_compress_works_on_a_big_window(session):
    """With a 1M-token window the automatic tail budget (20%) swallows everything; a
    manual /compress must still summarise the older exchanges."""
    s = session(context_windows={MODEL: 1_000_000})
    for _ in range(6):
        s.tool_turn()
    before = len(s.agent.conversation.messages)
    events = list(s.agent.compress())
    assert any(isinstance(e, Notice) and "Compressed the conversation (manual)" in e.text for e in events)
    assert len(s.agent.conversation.messages) < before
    assert len(s.summary_requests()) == 1


def test_compression_rereads_memory_and_uses_the_compression_model(session):
    s = session(compression_model="claude-haiku-4-5")
    s.tool_turn()
    (s.home / "memories").mkdir(exist_ok=True)
    (s.home / "memories" / "MEMORY.md").write_text("written mid-session")
    for _ in range(3):
        s.tool_turn()
    assert "written mid-session" not in s.agent.stable  # frozen until the sanctioned rebuild
    list(s.agent.compress())
    assert s.summary_requests()[-1].body["model"] == "claude-haiku-4-5"
    assert "written mid-session" in s.agent.stable
