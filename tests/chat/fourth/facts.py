"""The fourth platform, as data (gateway/chat/kit/facts.py)."""

from __future__ import annotations

from gateway.chat.kit.facts import PlatformFacts, TokenCheck

FACTS = PlatformFacts(
    name="fourth", label="Fourth", package="tests.chat.fourth",
    tokens=("FOURTH_TOKEN",), config_keys=("allowed_users", "base_url"),
    base_url="http://127.0.0.1:9/fourth", chat_id=r"^room-[0-9]+$",
    chat_hint="a Fourth room id (room-NUMBER)", target="fourth:ROOM_ID",
    target_noun="the Fourth room", sender="the gateway's Fourth bot: FOURTH_TOKEN",
    token_check=TokenCheck("GET", "/me", auth="Bearer {token}", shows="{name}"),
)
