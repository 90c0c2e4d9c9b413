"""Matrix, as data (gateway/chat/kit/facts.py), and its published limits."""

from __future__ import annotations

from gateway.chat.kit.facts import PlatformFacts, TokenCheck

NAME = "matrix"
TOKENS = ("MATRIX_ACCESS_TOKEN",)
CONFIG_KEYS = ("homeserver", "user_id", "allowed_users", "edit_interval")
USER_ID = r"^@[^:\s]+:\S+$"  # @alice:example.org, taken as it is (not a number)
EVENT_MAX_BYTES = 65_536  # the spec's limit on one event's JSON
PART_CHARS = 16_000  # one message's text (an edit carries it and its HTML twice)
RATE_PER_S = 0.2  # Synapse's rc_message default: one event every 5 s after a burst
BURST = 8  # below the server's 10: the first edits of a burst stay clear of its clock
EDIT_INTERVAL = 2.0  # s between edits of a streamed answer

FACTS = PlatformFacts(
    name=NAME, label="Matrix", package="gateway.chat.matrix", tokens=TOKENS,
    config_keys=(*CONFIG_KEYS, "leader_ttl"),
    base_url="", url_key="homeserver",  # no default: the homeserver is the user's
    chat_id=r"^![^:\s]+:\S+$",
    chat_hint="a Matrix room id (like !abcdEFGH:example.org: the room's settings > Advanced)",
    target="matrix:ROOM_ID", target_noun="the Matrix room",
    sender="the gateway's Matrix account: gateway.matrix in config.yaml and MATRIX_ACCESS_TOKEN",
    token_check=TokenCheck("GET", "_matrix/client/v3/account/whoami", auth="Bearer {token}",
                           shows="{user_id}", error_field="errcode"),
    section_needed=True, builder="settings", loggers=("nio",),
    replays=True,  # the sync token is kept: what arrived while down comes with the next sync
)
