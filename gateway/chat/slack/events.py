"""Slack events -> platform-neutral messages (gateway/chat/base.py `Inbound`).

- A message carrying `bot_id` (any bot, this one included) or a subtype other than a
  plain message, a file share or a thread broadcast (edits, deletions, joins) is not
  a message to answer: None.
- A mention arrives twice, as `app_mention` and as `message` with the same `ts`:
  `Seen` answers the first and drops the second.
- A DM (`channel_type` im, a D... channel) is one session; in a channel each thread is
  its own session (`thread_id` = the thread's root ts, the mention's own ts when it
  starts one), addressed when the bot is mentioned or the thread is one the bot
  answers in (follow-ups there need no mention).
- Commands are written `!usage` (Slack takes a message starting with / as one of its
  own slash commands): a leading `!word` becomes `/word` for the hub.
- Files: images go to the model with the text (`photos`), the rest are saved into the
  chat's workspace (`documents`), both fetched later through files.info.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Container
from dataclasses import dataclass
from typing import Any

from gateway.chat.base import Document, Inbound

ANSWERED_SUBTYPES = (None, "file_share", "thread_broadcast")
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
SEEN_MAX = 4096


@dataclass(frozen=True)
class SlackInbound(Inbound):
    """An Inbound with what a Slack reply needs: the message's ts and the sender's team."""

    ts: str = ""
    team: str = ""
    thread: str = ""  # in a DM: the root ts of the thread the message is in ("": none)

    @property
    def reply_thread(self) -> str:
        """The thread a reply goes to: the session's thread in a channel, the thread
        the user wrote in, else a new one under the message (a stream is always a
        reply in a thread; Slack wants the root's ts, never a reply's)."""
        return str(self.thread_id) if self.thread_id is not None else self.thread or self.ts


class Recent:
    """The last `size` keys added (older ones are forgotten): bounded memory for a
    gateway that runs for months."""

    def __init__(self, size: int = SEEN_MAX) -> None:
        self.size = size
        self._keys: OrderedDict[tuple[str, str], None] = OrderedDict()

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def add(self, key: tuple[str, str]) -> None:
        self._keys[key] = None
        self._keys.move_to_end(key)
        if len(self._keys) > self.size:
            self._keys.popitem(last=False)


class Seen(Recent):
    """Messages delivered lately: the second delivery of one (channel, ts) is dropped."""

    def first(self, channel: str, ts: str) -> bool:
        if (channel, ts) in self:
            return False
        self.add((channel, ts))
        return True


def is_dm(event: dict[str, Any]) -> bool:
    """A direct message (app_mention carries no channel_type: D... channels are DMs)."""
    kind = event.get("channel_type")
    return kind == "im" if kind else str(event.get("channel", "")).startswith("D")


def _files(event: dict[str, Any]) -> tuple[tuple[Document, ...], tuple[Document, ...]]:
    docs: list[Document] = []
    photos: list[Document] = []
    for item in event.get("files") or ():
        if not isinstance(item, dict) or not item.get("id"):
            continue
        size = item.get("size")
        doc = Document(str(item["id"]), str(item.get("name") or "file"),
                       size if isinstance(size, int) else None)
        (photos if item.get("mimetype") in IMAGE_TYPES else docs).append(doc)
    return tuple(docs), tuple(photos)


def inbound(event: dict[str, Any], bot_user: str, threads: Container[tuple[str, str]]) -> SlackInbound | None:
    """The message of a `message` or `app_mention` event; None when it is not one to
    answer. `threads`: (channel, root ts) of the threads the bot answers in."""
    if event.get("bot_id") or event.get("subtype") not in ANSWERED_SUBTYPES:
        return None
    user, channel, ts = event.get("user"), event.get("channel"), event.get("ts")
    if not (isinstance(user, str) and isinstance(channel, str) and isinstance(ts, str)) \
            or user == bot_user:
        return None
    mention = f"<@{bot_user}>"
    raw = str(event.get("text") or "")
    text = re.sub(rf"\s*{re.escape(mention)}\s*", " ", raw).strip() if bot_user else raw
    if re.match(r"![a-z]", text):  # Slack keeps /words for its own slash commands
        text = "/" + text[1:]
    docs, photos = _files(event)
    if not (text or docs or photos):
        return None
    team = str(event.get("team") or event.get("user_team") or "")
    if is_dm(event):
        return SlackInbound("slack", channel, user, text, "private", None, True, None,
                            docs, photos, ts=ts, team=team, thread=str(event.get("thread_ts") or ""))
    root = str(event.get("thread_ts") or ts)
    addressed = event.get("type") == "app_mention" or mention in raw or (channel, root) in threads
    return SlackInbound("slack", channel, user, text, "channel", root, addressed, None,
                        docs, photos, ts=ts, team=team)
