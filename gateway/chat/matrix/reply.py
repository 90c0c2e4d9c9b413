"""One answer on Matrix: streamed by `m.replace` edits, split so every event fits.

While the turn runs, the answer shows as it grows: the first message one
`edit_interval` into the turn, then edits of it (`m.replace`) at most every
`edit_interval`, each only when the room's budget has a token now (an interim edit is
skipped under pressure, the final text always follows). The final text is sent whole:
the parts already shown are edited to their final text, the rest are new messages.

Size: the spec caps an event at 65,536 bytes of JSON, and an edit carries its text
four times - the fallback `body` and `formatted_body` ("* ...") and both again in
`m.new_content` - so a part is at most PART_CHARS characters (~16,000) and is split
further until its largest event (the edit) fits with room for the server's envelope.
Parts are cut by the shared splitter (gateway/chat/text.py: paragraphs, code blocks
with fences reopened), in order, nothing lost. Text is `org.matrix.custom.html`
(gateway/chat/text.py's HTML, line breaks as <br> outside code blocks).
"""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any, Protocol

from gateway.chat.matrix.facts import EVENT_MAX_BYTES, PART_CHARS
from gateway.chat.text import split_message, to_html

if TYPE_CHECKING:
    from gateway.chat.matrix.events import MatrixInbound

ENVELOPE = 2_048  # bytes the server adds: sender, ids, hashes, signatures, unsigned
HTML = "org.matrix.custom.html"
PRE = re.compile(r"(<pre>.*?</pre>)", re.S)


def matrix_html(text: str) -> str:
    """The formatted body of `text` (line breaks kept as <br> outside code blocks)."""
    return "".join(part if part.startswith("<pre>") else part.replace("\n", "<br>")
                   for part in PRE.split(to_html(text)))


def message(text: str, *, msgtype: str = "m.text", thread: str | None = None,
            reply_to: str | None = None) -> dict[str, Any]:
    """The content of a new message (in `thread`, answering `reply_to`, if given)."""
    content: dict[str, Any] = {"msgtype": msgtype, "body": text, "format": HTML,
                               "formatted_body": matrix_html(text),
                               "m.mentions": {}}  # the model's text pings no one
    if thread is not None:
        content["m.relates_to"] = {"rel_type": "m.thread", "event_id": thread,
                                   "is_falling_back": True,
                                   "m.in_reply_to": {"event_id": reply_to or thread}}
    return content


def edit(event_id: str, text: str, msgtype: str = "m.text") -> dict[str, Any]:
    """The content of an edit replacing `event_id`'s text with `text`."""
    new = message(text, msgtype=msgtype)
    return {"msgtype": msgtype, "body": f"* {text}", "format": HTML,
            "formatted_body": f"* {new['formatted_body']}", "m.mentions": {}, "m.new_content": new,
            "m.relates_to": {"rel_type": "m.replace", "event_id": event_id}}


def size(content: dict[str, Any]) -> int:
    return len(json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode())


def fits(text: str) -> bool:
    """True when an edit carrying `text` stays within the event limit."""
    return size(edit("$" + "x" * 60, text)) + ENVELOPE <= EVENT_MAX_BYTES


def parts(text: str, limit: int = PART_CHARS) -> list[str]:
    """`text` in parts each of whose events fits (see the module docstring)."""
    out: list[str] = []
    for piece in split_message(text, limit):
        out += [piece] if fits(piece) or limit < 64 else parts(piece, limit // 2)
    return out


class Writer(Protocol):
    """What a reply needs of the adapter (gateway/chat/matrix/adapter.py)."""

    async def write(self, room: str, content: dict[str, Any], *,
                    interim: bool = False) -> str | None: ...

    async def typing(self, room: str) -> None: ...


class MatrixReply:
    """The rendering of one answer (see the module docstring)."""

    def __init__(self, adapter: Writer, msg: MatrixInbound, interval: float) -> None:
        self.adapter = adapter
        self.room = msg.chat_id
        self.thread = str(msg.thread_id) if msg.thread_id is not None else None
        self.reply_to = msg.event_id or None
        self.interval = interval
        self.events: list[str] = []  # the parts' event ids, in order
        self.shown: list[str] = []  # what each part shows now
        self.next_edit = time.monotonic() + interval  # a quick answer comes whole

    async def typing(self) -> None:
        await self.adapter.typing(self.room)

    async def update(self, text: str) -> None:
        now = time.monotonic()
        if now < self.next_edit or not text.strip():
            return
        self.next_edit = now + self.interval
        await self._show(parts(text), interim=True)

    async def finish(self, text: str) -> None:
        await self._show(parts(text) or ["(no answer)"], interim=False)

    async def _show(self, pieces: list[str], *, interim: bool) -> None:
        for index, piece in enumerate(pieces):
            if index < len(self.events):
                if self.shown[index] == piece:
                    continue
                sent = await self.adapter.write(self.room, edit(self.events[index], piece),
                                                interim=interim)
                if sent is None:
                    return  # skipped: the next update (or the final text) carries it
                self.shown[index] = piece
                continue
            sent = await self.adapter.write(
                self.room, message(piece, thread=self.thread, reply_to=self.reply_to),
                interim=interim)
            if sent is None:
                return
            self.events.append(sent)
            self.shown.append(piece)
