"""The pure parts: cut points, the head/middle/tail split, the summariser's text."""

from __future__ import annotations

from agent.compression.plan import cut_points, plan
from agent.compression.prompt import summary_message, summary_prompt, tool_digest
from agent.messages import Message, ToolCall


def _call(i: int) -> ToolCall:
    return ToolCall(f"t{i}", "read_file", f'{{"path":"f{i}.txt"}}')


def _history(turns: int, calls: int = 2) -> list[Message]:
    out: list[Message] = []
    for n in range(turns):
        out.append(Message("user", f"request {n} " + "x" * 200))
        batch = tuple(_call(n * 10 + k) for k in range(calls))
        out.append(Message("assistant", "looking", tool_calls=batch))
        out.extend(Message("tool", "line\n" * 100, tool_call_id=c.id, tool_name=c.name)
                   for c in batch)
        out.append(Message("assistant", f"answer {n}"))
    return out


def test_cut_points_never_separate_calls_from_results():
    history = _history(3)
    points = cut_points(history)
    for index in points:
        assert history[index].role != "tool"
        answered = {m.tool_call_id for m in history[:index] if m.role == "tool"}
        asked = {c.id for m in history[:index] for c in m.tool_calls}
        assert asked <= answered
    # a tool call whose results are still missing blocks a cut before the next assistant
    open_call = [Message("user", "u"), Message("assistant", "", tool_calls=(_call(1),)),
                 Message("assistant", "after")]
    assert cut_points(open_call) == [0, 1]


def test_plan_keeps_head_and_tail_and_every_tail_call_answered():
    history = _history(8)
    work = plan(history, tail_budget=600)
    assert work is not None
    assert work.head == (history[0],) and work.previous is None
    assert work.head + work.middle + work.tail == tuple(history)
    assert work.tail[0].role in ("user", "assistant")
    ids = {c.id for m in work.tail for c in m.tool_calls}
    assert ids == {m.tool_call_id for m in work.tail if m.role == "tool"}
    users = [m for m in work.tail if m.role == "user"]
    assert len(users) >= 3  # the last three exchanges fit in twice the budget


def test_tail_shrinks_to_the_budget_when_exchanges_are_huge():
    history = _history(8, calls=6)
    work = plan(history, tail_budget=300)
    assert work is not None
    assert len([m for m in work.tail if m.role == "user"]) < 3
    assert work.tail and work.middle


def test_plan_hands_the_previous_summary_over_instead_of_summarising_it():
    seam = summary_message("## Goal\nOLD", "parent-1", 9)
    history = [Message("user", "first"), seam, *_history(6)]
    work = plan(history, tail_budget=600)
    assert work is not None and work.previous is seam and seam not in work.middle
    text, digests = summary_prompt(work, "the lexer")
    assert "<previous-summary - update it>\n## Goal\nOLD" in text
    assert "[Summary of earlier conversation]" not in text
    assert digests == sum(1 for m in work.middle if m.role == "tool")
    assert "the lexer" in text and "line\nline" not in text


def test_nothing_to_plan_for_a_short_history():
    assert plan([], 100) is None
    assert plan([Message("user", "hi"), Message("assistant", "hello")], 100) is None


def test_tool_digest_is_one_line():
    message = Message("tool", "first line\n" + "more\n" * 50, tool_call_id="t1",
                      tool_name="read_file", is_error=True)
    digest = tool_digest(message, _call(1))
    assert "\n" not in digest and digest.startswith("[read_file(")
    assert "error" in digest and "51 lines" in digest and "first line" in digest
