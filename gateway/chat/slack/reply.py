"""One answer on Slack: streamed with Slack's native streaming, split within its limits.

While the turn runs, the answer streams into a reply in the thread: `chat.startStream`
with the first text, `chat.appendStream` with what came since, at most once per
`edit_interval` and only when the chat's budget has a token now (an interim append is
skipped under pressure; the next one carries the text). Text is standard Markdown
(`markdown_text`), which Slack renders itself, so nothing is converted.

Limits (nothing is lost; the answer arrives whole, in order):
- one message holds at most ROOM characters of Markdown (Slack: 12,000 per
  `markdown_text` and per message's Markdown; text past 40,000 is truncated silently),
  so a longer answer is several messages in the thread: the streamed one is stopped
  (a code fence open at its end is closed) and the rest follows, the fence reopened;
- `finish` stops the stream with what is left that fits and posts the rest with
  `chat.postMessage` (`markdown_text`, split at paragraph / code-block boundaries by
  gateway/chat/text.py, fences balanced in each part); a short answer that came before
  the first interval is one postMessage.
Every final call waits for the chat's budget and waits out a 429 (Retry-After); the
stream's text is the turn's folded text, and a final answer that differs from it
(the turn's last message only, or "(stopped)" added) is appended where it continues.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

from slack_sdk.errors import SlackApiError

from gateway.chat.text import open_block, reopen_line, split_message

if TYPE_CHECKING:
    from slack_sdk.web.async_client import AsyncWebClient

    from gateway.chat.slack.events import SlackInbound

CAP = 12_000  # Slack: markdown_text per call and a message's Markdown
ROOM = CAP - 64  # room to close a code fence at the end and reopen it in the next part
MIN_PIECE = 400  # less room than this left in a streamed message: start the next one
THINKING = "is thinking…"


def open_fence(body: str) -> str | None:
    """The fence line (```python) of a code block left open at the end of `body`."""
    return open_block(body, None)


def cut(text: str, room: int) -> str:
    """The longest head of `text` within `room` characters ending at a paragraph or line
    break (a hard cut only when the head has no break in its second half)."""
    if len(text) <= room:
        return text
    head = text[:room]
    for sep in ("\n\n", "\n"):
        at = head.rfind(sep)
        if at >= room // 2:
            return head[:at + len(sep)]
    return head


def merged(latest: str, final: str) -> str:
    """The whole answer: the streamed text `latest`, continued by `final` where `final`
    continues it (it may repeat the streamed text's tail: the last message only)."""
    if final.startswith(latest):
        return final
    probe = final[:80]
    at = latest.find(probe) if probe else -1
    while at >= 0:  # an overlap of at least the probe's length, the longest first
        if final.startswith(latest[at:]):
            return latest + final[len(latest) - at:]
        at = latest.find(probe, at + 1)
    for at in range(max(0, len(latest) - len(probe)), len(latest)):  # a shorter one
        if final.startswith(latest[at:]):
            return latest + final[len(latest) - at:]
    return f"{latest}\n\n{final}" if latest else final


class Writer(Protocol):
    """What a reply needs of the adapter (gateway/chat/slack/adapter.py SlackAdapter)."""

    web: AsyncWebClient
    team_id: str

    async def write(self, chat: str, method: str, *, interim: bool = False,
                    **kwargs: Any) -> Any: ...

    def warn(self, chat: str, exc: SlackApiError) -> None: ...


class SlackReply:
    """The rendering of one answer in its thread (see the module docstring)."""

    def __init__(self, adapter: Writer, msg: SlackInbound, interval: float) -> None:
        self.adapter = adapter
        self.msg = msg
        self.channel = msg.chat_id
        self.thread = msg.reply_thread
        self.interval = interval
        self.ts: str | None = None  # the message streaming now
        self.body = ""  # its Markdown so far
        self.reopen = ""  # a fence line to reopen at the start of the next message
        self.delivered = ""  # the answer's text given to Slack so far
        self.latest = ""
        self.status_set = False
        # streaming failed here, or there is no thread to stream into (a slash command's
        # answer): the text is posted at the end
        self.broken = not self.thread
        # no stream before one interval: a quick answer arrives whole, in one call
        self.next_edit = time.monotonic() + interval

    async def typing(self) -> None:
        """Slack's "is thinking…" status under the thread (once: it stays until the
        bot replies there)."""
        if self.status_set or not self.thread:
            return
        self.status_set = True
        await self.adapter.web.assistant_threads_setStatus(
            channel_id=self.channel, thread_ts=self.thread, status=THINKING)

    def _stream_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {"thread_ts": self.thread}
        if self.msg.group:  # in a channel a stream names its reader
            args.update(recipient_user_id=self.msg.user_id, recipient_team_id=self.msg.team
                        or self.adapter.team_id)
        return args

    async def update(self, text: str) -> None:
        self.latest = text
        now = time.monotonic()
        rest = text[len(self.delivered):]
        if now < self.next_edit or not rest.strip() or self.broken:
            return
        self.next_edit = now + self.interval
        try:
            await self._stream(rest)
        except SlackApiError as exc:  # a lost interim part is harmless: finish posts it
            self.broken = True
            self.adapter.warn(self.channel, exc)

    async def _stream(self, rest: str) -> None:
        if self.ts is not None and len(self.body) + len(rest) > ROOM:
            await self._roll(rest, interim=True)
            return
        piece = cut(rest, ROOM - len(self.reopen))
        if self.ts is None:
            body = self.reopen + piece
            sent = await self.adapter.write(self.channel, "chat_startStream", interim=True,
                                            markdown_text=body, **self._stream_args())
            if sent is None:
                return
            self.ts, self.body, self.reopen = str(sent["ts"]), body, ""
        else:
            sent = await self.adapter.write(self.channel, "chat_appendStream", interim=True,
                                            ts=self.ts, markdown_text=piece)
            if sent is None:
                return
            self.body += piece
        self.delivered += piece

    async def _roll(self, rest: str, *, interim: bool) -> bool:
        """Stop the streaming message with what of `rest` still fits (its open fence
        closed); the next part starts a new message. False: skipped (interim)."""
        room = ROOM - len(self.body)
        piece = cut(rest, room) if room >= MIN_PIECE else ""
        fence = open_fence(self.body + piece)
        closing = piece + ("\n```" if fence and len(piece) < len(rest) else "")
        args: dict[str, Any] = {"ts": self.ts}
        if closing:
            args["markdown_text"] = closing
        if await self.adapter.write(self.channel, "chat_stopStream", interim=interim,
                                    **args) is None:
            return False
        self.delivered += piece
        # the block reopened by its marker and language, never its whole first line
        self.reopen = reopen_line(fence) if fence and len(piece) < len(rest) else ""
        self.ts, self.body = None, ""
        return True

    async def finish(self, text: str) -> None:
        target = merged(self.latest, text)
        rest = target[len(self.delivered):] if target.startswith(self.delivered) else \
            "\n\n" + target  # never: the delivered text is a head of what the turn said
        if self.ts is not None:
            try:
                await self._roll(rest, interim=False)
            except SlackApiError as exc:  # the stream ended (expired): post the rest
                self.adapter.warn(self.channel, exc)
                self.reopen = ""
            rest = target[len(self.delivered):] if target.startswith(self.delivered) else ""
        pieces = split_message(self.reopen + rest, ROOM) if rest.strip() else []
        if not pieces and not self.delivered:
            pieces = ["(no answer)"]
        where: dict[str, Any] = {"thread_ts": self.thread} if self.thread else {}
        for piece in pieces:
            await self.adapter.write(self.channel, "chat_postMessage", markdown_text=piece,
                                     **where)
