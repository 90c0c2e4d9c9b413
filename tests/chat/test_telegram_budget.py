"""Telegram's sends and edits draw from one per-chat budget (gateway/chat/budget.py):
a fast stream skips interim edits instead of meeting the flood limit, and the final
text always arrives (wire tier: fake Bot API + fake provider)."""

from __future__ import annotations

import pytest

from tests.fakes import Reply
from tests.helpers import OWNER

pytestmark = pytest.mark.wire


def test_a_fast_stream_skips_interim_edits_and_never_meets_the_flood_limit(chats):
    chats.tg.flood_limit = 3  # a short burst, then about one a second, as Telegram allows
    chats.fake.script(Reply("word " * 600, chunks=150, delay=0.01))
    server = chats.start(edit_interval=0)  # no interval: only the budget spaces the edits
    chats.tg.message(OWNER, OWNER, "stream a lot")
    chats.turns(server, 1)
    writes = [c for c in chats.tg.recorded(chat_id=OWNER)
              if c.method in ("sendMessage", "editMessageText")]
    assert [c.status for c in writes if c.status != 200] == []
    assert len(writes) >= 2  # it streamed (a message, then edits) and sent the final text
    assert chats.tg.shown(OWNER)[-1].split() == ["word"] * 600
    adapter = chats.hub(server).adapters[0]
    assert adapter.budget.skipped > 0 and adapter.rate_limited == 0
