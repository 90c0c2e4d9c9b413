"""A photo sent to the Telegram bot reaches the model as an image: the largest of the
sizes Telegram made, downloaded through the Bot API (wire tier: fake Bot API + fake
provider), scaled once, and re-sent with the same bytes on the chat's next turn."""

from __future__ import annotations

import base64

import pytest

from tests.fakes import Reply
from tests.fakes.cache import canonical
from tests.helpers import OWNER, screenshot

pytestmark = pytest.mark.wire


def test_a_photo_goes_to_the_model_as_its_largest_size(chats):
    small, large = screenshot(320, 200, fmt="JPEG"), screenshot(1280, 800, fmt="JPEG")
    chats.fake.script(Reply("a terminal"), Reply("still a terminal"))
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "what is this?", photo=[(320, 200, small), (1280, 800, large)])
    stats = chats.hub(server).stats["telegram"]
    chats.tg.wait_for(lambda: stats.turns >= 1, timeout=60, what="the photo's turn")
    first = chats.fake.requests[0]
    user = first.body["messages"][0]["content"]
    assert [p["type"] for p in user] == ["image", "text"]
    assert base64.b64decode(user[0]["source"]["data"]) == large  # within limits: as sent
    assert user[1]["text"] == "what is this?"
    fetched = [c.params.get("file_id") for c in chats.tg.recorded("getFile")]
    assert len(fetched) == 1 and fetched[0].endswith("_1")  # the largest size only

    chats.tg.message(OWNER, OWNER, "and the colour?")
    chats.tg.wait_for(lambda: stats.turns >= 2, timeout=60, what="the next turn")
    second = chats.fake.requests[1]
    assert canonical(second.body["messages"][0]) == canonical(first.body["messages"][0])
    assert second.cache_read > 0
