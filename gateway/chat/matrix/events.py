"""Matrix events -> Inbound messages: who wrote, in which room, whether the bot is meant.

- Only `m.room.message` events of msgtype m.text (or m.emote) are answered: never the
  bot's own, never an `m.notice` (what bots send, by the spec's convention), never an
  edit (`m.replace`) of an earlier message.
- A room with at most two joined members is a direct chat (its own session). In a
  larger room the bot answers when mentioned: its user id or display name in the body,
  a pill (`https://matrix.to/#/@bot:server`) in `formatted_body`, or `m.mentions`
  (Element puts the id only in the pill); the answer goes in a thread on the mention
  (`m.thread`), and that thread is the session. A message in a thread the bot answers
  in needs no mention.
"""

from __future__ import annotations

import re
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from gateway.chat.base import Inbound

ANSWERED = ("m.text", "m.emote")


@dataclass(frozen=True)
class MatrixInbound(Inbound):
    event_id: str = ""  # the message's event id (a thread's root, a reply's target)


def relation(content: dict[str, Any]) -> dict[str, Any]:
    found = content.get("m.relates_to")
    return found if isinstance(found, dict) else {}


def mentioned(content: dict[str, Any], bot: str, name: str) -> bool:
    """True when the message mentions the bot (see the module docstring)."""
    mentions = content.get("m.mentions")
    if isinstance(mentions, dict) and bot in (mentions.get("user_ids") or ()):
        return True
    if f"matrix.to/#/{bot}" in str(content.get("formatted_body") or ""):
        return True
    body = str(content.get("body") or "")
    if bot in body:
        return True
    return bool(name) and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", body, re.I) is not None


def strip_mention(body: str, bot: str, name: str) -> str:
    """The body without a leading mention ("Hermes: ...", "@hermes:server ...")."""
    names = [re.escape(bot)] + ([re.escape(name)] if name else [])
    return re.sub(rf"^\s*(?:{'|'.join(names)})[:,]?\s*", "", body, flags=re.I).strip() or body


def inbound(room: str, event: dict[str, Any], *, bot: str, name: str, members: int,
            threads: Container[tuple[str, str]]) -> MatrixInbound | None:
    """The message of a timeline event; None when it is not one to answer. `members`:
    the room's joined members; `threads`: (room, root) the bot answers in."""
    content = event.get("content")
    sender, event_id = event.get("sender"), event.get("event_id")
    if event.get("type") != "m.room.message" or not isinstance(content, dict) \
            or not isinstance(sender, str) or not isinstance(event_id, str) or sender == bot:
        return None
    rel = relation(content)
    if content.get("msgtype") not in ANSWERED or rel.get("rel_type") == "m.replace":
        return None
    body = str(content.get("body") or "")
    if members <= 2:
        return MatrixInbound("matrix", room, sender, body.strip(), "private", event_id=event_id)
    root = str(rel["event_id"]) if rel.get("rel_type") == "m.thread" and rel.get("event_id") \
        else event_id
    addressed = mentioned(content, bot, name) or (room, root) in threads
    return MatrixInbound("matrix", room, sender, strip_mention(body, bot, name), "group", root,
                         addressed, event_id=event_id)
