"""Discord's rate limits against a chat: the channel's budget spaces sends and edits,
a 429 holds the channel for its retry_after and nothing is lost (wire tier: FakeDiscord
+ fake provider); the fake's own limits (over real HTTP)."""

from __future__ import annotations

import httpx
import pytest

from tests.chat.discord_harness import OWNER
from tests.fakes import Reply
from tests.fakes.discord_api import CHANNEL_ID, TOKEN, FakeDiscord

pytestmark = pytest.mark.wire
DM = OWNER + 1


def _writes(chats, channel: int) -> list:
    return [c for c in chats.dc.recorded(channel=channel) if not c.path.endswith("/typing")]


def test_a_fast_stream_skips_interim_edits_and_never_meets_the_rate_limit(discord_chats):
    chats = discord_chats
    chats.fake.script(Reply("word " * 600, chunks=150, delay=0.01))
    server = chats.start(edit_interval=0)  # no interval: only the budget spaces the edits
    chats.dc.dm(OWNER, "stream a lot")
    chats.turns(server, 1)
    assert [c.status for c in _writes(chats, DM) if c.status != 200] == []
    adapter = chats.adapter(server)
    assert adapter.budget.skipped > 0 and adapter.rate_limited == 0
    assert " ".join(chats.dc.texts(DM)).split() == ["word"] * 600


def test_a_429_is_honoured_for_its_retry_after_and_the_rest_still_arrives(discord_chats):
    chats = discord_chats
    text = "\n\n".join(f"part {i} " + "x" * 1500 for i in range(3))
    chats.fake.script(Reply(text))
    server = chats.start()
    chats.dc.force_429(DM, retry_after=1.0)
    chats.dc.dm(OWNER, "hi")
    chats.turns(server, 1)
    writes = _writes(chats, DM)
    limited = next(i for i, c in enumerate(writes) if c.status == 429)
    after = writes[limited + 1]
    assert after.status == 200 and after.time - writes[limited].time >= 0.95
    assert [t.split()[:2] for t in chats.dc.texts(DM)] == [["part", "0"], ["part", "1"],
                                                           ["part", "2"]]
    assert chats.adapter(server).rate_limited == 1  # the channel's budget was held


def test_the_fake_applies_discords_published_limits():
    with FakeDiscord(rate=(5, 5.0)) as dc, httpx.Client(base_url=dc.base_url, headers={
            "Authorization": f"Bot {TOKEN}"}) as http:
        url = f"/channels/{CHANNEL_ID}/messages"
        too_long = http.post(url, json={"content": "x" * 2001})
        assert too_long.status_code == 400 and too_long.json()["code"] == 50035
        answers = [http.post(url, json={"content": f"m{i}"}) for i in range(6)]
        assert [a.status_code for a in answers] == [200] * 5 + [429]
        assert answers[3].headers["X-RateLimit-Remaining"] == "1"
        limited = answers[5]
        assert 0 < limited.json()["retry_after"] <= 5.0 and limited.headers["Retry-After"]
        assert limited.headers["Via"]  # discord.py trusts no 429 without it
        edit = http.patch(f"{url}/{answers[0].json()['id']}", json={"content": "edited"})
        assert edit.status_code == 200  # edits have a bucket of their own
        assert httpx.get(dc.base_url + "/users/@me").status_code == 401
        thread = f"{url}/{answers[0].json()['id']}/threads"
        assert http.post(thread, json={"name": "t"}).status_code == 201
        assert http.post(thread, json={"name": "t"}).json()["code"] == 160004
