"""What a Discord user sees: long replies split at 2,000 characters with fences intact,
streamed edits spaced by edit_interval and the channel's budget, 429s honoured
(wire tier: FakeDiscord + fake provider)."""

from __future__ import annotations

import pytest

from gateway.chat.text import balanced, split_message
from tests.chat.discord_harness import OWNER
from tests.fakes import Reply

pytestmark = pytest.mark.wire
DM = OWNER + 1


def _writes(chats, channel: int) -> list:
    return [c for c in chats.dc.recorded(channel=channel) if not c.path.endswith("/typing")]


def test_a_12000_character_reply_arrives_whole_in_parts_with_fences_intact(discord_chats):
    chats = discord_chats
    code = "\n".join(f"print('line {i} of the program')" for i in range(240))
    prose = "\n\n".join(f"Paragraph {i}: " + "**word** " * 60 for i in range(8))
    text = f"{prose}\n\n```python\n{code}\n```\n\nThe end."
    assert len(text) >= 12_000
    chats.fake.script(Reply(text))
    server = chats.start()
    chats.dc.dm(OWNER, "write a lot")
    chats.turns(server, 1)
    shown = chats.dc.texts(DM)
    assert len(shown) >= 7 and all(len(part) <= 2000 for part in shown)
    assert all(balanced(part) for part in shown)
    code_parts = [p for p in shown if "print('line" in p]
    assert len(code_parts) >= 3 and all(p.startswith("```python\n") or "```python\n" in p
                                        for p in code_parts)
    joined = "\n".join(shown)
    assert all(f"print('line {i} of the program')" in joined for i in range(240))
    assert "Paragraph 7: **word**" in joined and shown[-1].endswith("The end.")
    assert [c.status for c in _writes(chats, DM) if c.status != 200] == []


def test_edits_of_one_message_are_no_more_frequent_than_edit_interval(discord_chats):
    chats = discord_chats
    chats.fake.script(Reply("word " * 300, chunks=90, delay=0.05))  # about 4.5 s of stream
    server = chats.start(edit_interval=2.0)  # longer than the budget's spacing
    chats.dc.dm(OWNER, "tell me a story")
    chats.turns(server, 1)
    writes = _writes(chats, DM)
    assert [c.status for c in writes if c.status != 200] == []
    (message,) = chats.dc.sent(DM)
    edits = [c.time for c in writes if c.method == "PATCH"]
    times = [writes[0].time, *edits]  # the message's creation, then each edit
    assert len(edits) >= 2  # it streamed
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert min(gaps) >= 1.8, gaps  # 2 s less the jitter of a loaded machine (budget: 1.25 s)
    assert message["content"].split() == ["word"] * 300


def test_a_reply_opening_a_fence_past_the_limit_arrives_once_in_its_pieces(discord_chats):
    """Before: "Something went wrong: list index out of range" after a paid answer."""
    chats = discord_chats
    answer = "```js " + "x" * 3000
    chats.fake.script(Reply(answer))
    server = chats.start()
    chats.dc.dm(OWNER, "write a lot")
    chats.turns(server, 1)
    pieces = split_message(answer, 2000)
    shown = chats.dc.texts(DM)
    assert len(pieces) == 2 and shown == pieces  # each piece once: count and characters
    assert sum(map(len, shown)) == sum(map(len, pieces))


def test_a_streamed_reply_opening_a_fence_past_the_limit_is_previewed_then_sent_whole(
        discord_chats):
    """The "Something went wrong: list index out of range": the streamed preview
    indexed an empty split."""
    chats = discord_chats
    answer = "```js " + "x" * 3000
    chats.fake.script(Reply(answer, chunks=30, delay=0.1))  # about 3 s: edits while it runs
    server = chats.start()
    chats.dc.dm(OWNER, "write a lot")
    chats.turns(server, 1)
    shown = chats.dc.texts(DM)
    assert shown == split_message(answer, 2000) and "went wrong" not in "".join(shown)
