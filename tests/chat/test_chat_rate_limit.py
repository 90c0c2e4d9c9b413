"""A chat over its rate limit hears one short reply saying when to try again, and the
provider hears nothing (wire tier: fake Bot API, fake provider)."""

from __future__ import annotations

import re

import pytest

from tests.helpers import OWNER

pytestmark = pytest.mark.wire


def test_a_chat_over_its_rate_limit_is_told_when_to_retry(chats):
    chats.config["gateway"]["rate_limit"] = {"requests_per_minute": 1}
    server = chats.start(allowed_users=[OWNER, 112])
    chats.tg.message(OWNER, OWNER, "first")
    chats.turns(server, 1)
    chats.tg.message(OWNER, OWNER, "second, too soon")
    chats.tg.wait_for(lambda: any("rate limit" in t for t in chats.tg.shown(OWNER)))
    refusal = chats.tg.shown(OWNER)[-1]
    assert "1 request per minute for this chat" in refusal
    assert re.search(r"try again in \d+ s", refusal) and len(refusal) < 120
    chats.tg.message(OWNER, OWNER, "/new")  # a built-in command counts against the rate too
    chats.tg.wait_for(lambda: len([t for t in chats.tg.shown(OWNER) if "rate limit" in t]) == 2)
    chats.tg.message(112, 112, "another chat counts on its own")
    chats.turns(server, 2)
    assert len(chats.fake.requests_for("anthropic")) == 2  # the refused one never left
