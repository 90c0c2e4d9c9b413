"""The Web API rules FakeSlack (tests/fakes/slack_api.py) applies to the bot's writes.

Published limits kept here:
- `text` of a message: past 40,000 characters Slack truncates it silently (the fake
  truncates too and records an error, so a test sees what a user would lose);
- `markdown_text` (chat.postMessage, chat.startStream/appendStream/stopStream): at most
  12,000 characters per call, else `msg_too_long`; it cannot be combined with `text`
  or `blocks`;
- a section block's text: at most 3,000 characters, else `invalid_blocks`;
- a stream (chat.startStream) is always a reply in a thread (`thread_ts`), and in a
  channel names its reader (`recipient_user_id`, `recipient_team_id`); only a message
  still streaming takes appendStream/stopStream (`message_not_in_streaming_state`);
- rate limits per channel: writes (postMessage, postEphemeral, startStream, stopStream)
  `post_limit` per `post_window` s (Slack: about one a second, short bursts allowed),
  edits (chat.update, chat.appendStream) `edit_limit` per `edit_window` s (chat.update:
  about 50 a minute).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .telegram_api import Call  # one recorded API call, the same record for both fakes

BOT_TOKEN = "xoxb-1-fake-bot-token"
BOT_USER = "UBOTHERMES"
BOT_ID = "BHERMES"
TEAM = "T0FAKE"
__all__ = ["Call", "Limits", "Message", "check_write"]
ACK_DEADLINE = 3.0
TEXT_MAX = 40_000
MARKDOWN_MAX = 12_000
SECTION_MAX = 3_000
POSTS = {"chat.postMessage", "chat.postEphemeral", "chat.startStream", "chat.stopStream"}
EDITS = {"chat.update", "chat.appendStream"}


@dataclass
class Limits:
    post_limit: int = 10
    post_window: float = 10.0
    edit_limit: int = 50
    edit_window: float = 60.0
    text_max: int = TEXT_MAX

    def of(self, method: str) -> tuple[str, int, float]:
        if method in EDITS:
            return "edit", self.edit_limit, self.edit_window
        return "post", self.post_limit, self.post_window


@dataclass
class Message:
    """One message the bot posted (or streams)."""

    channel: str
    ts: str
    thread_ts: str | None
    streaming: bool = False
    ephemeral_to: str | None = None
    user: str = BOT_USER
    text: str = ""
    markdown: str = ""
    blocks: list[dict[str, Any]] = field(default_factory=list)
    edits: list[float] = field(default_factory=list)  # times of chat.update / appendStream
    calls: int = 0

    @property
    def shown(self) -> str:
        """What the user reads (the Markdown, else the text)."""
        return self.markdown or self.text

    def apply(self, method: str, params: dict[str, Any], now: float, errors: list[str],
              text_max: int) -> None:
        self.calls += 1
        piece = str(params.get("markdown_text") or "")
        if method in ("chat.postMessage", "chat.postEphemeral", "chat.update"):
            self.text = str(params.get("text") or "")
            self.markdown = piece
            self.blocks = _blocks(params.get("blocks"))
        elif method in ("chat.startStream", "chat.appendStream", "chat.stopStream"):
            self.markdown += piece
            self.streaming = method != "chat.stopStream"
        if method in EDITS:
            self.edits.append(now)
        for name in ("text", "markdown"):
            value = getattr(self, name)
            if len(value) > text_max:
                errors.append(f"{self.channel}/{self.ts}: {name} of {len(value)} characters "
                              f"truncated to {text_max}")
                setattr(self, name, value[:text_max])


def _blocks(raw: Any) -> list[dict[str, Any]]:
    if isinstance(raw, str):
        raw = json.loads(raw or "[]")
    return list(raw or [])


def _content_error(params: dict[str, Any], *, need: bool = True) -> str | None:
    markdown = params.get("markdown_text")
    if markdown is not None and (params.get("text") or params.get("blocks")):
        return "invalid_arguments"
    if markdown is not None and len(str(markdown)) > MARKDOWN_MAX:
        return "msg_too_long"
    try:
        blocks = _blocks(params.get("blocks"))
    except (ValueError, TypeError):
        return "invalid_blocks_format"
    for block in blocks:
        text = block.get("text")
        if block.get("type") == "section" and isinstance(text, dict) and \
                len(str(text.get("text", ""))) > SECTION_MAX:
            return "invalid_blocks"
    if need and not (markdown or params.get("text") or blocks):
        return "no_text"
    return None


def check_write(method: str, params: dict[str, Any],  # noqa: PLR0911
                messages: dict[tuple[str, str], Message], errors: list[str]) -> Message | str | None:
    """An error code, the message a call changes, or None for a new message."""
    channel = str(params.get("channel") or "")
    if not channel:
        return "channel_not_found"
    if method in ("chat.postMessage", "chat.postEphemeral"):
        if method == "chat.postEphemeral" and not params.get("user"):
            return "user_not_in_channel"
        return _content_error(params)
    if method == "chat.startStream":
        if not params.get("thread_ts"):
            return "invalid_arguments"
        if not channel.startswith("D") and not (params.get("recipient_user_id")
                                                and params.get("recipient_team_id")):
            return "invalid_arguments"
        return _content_error(params, need=False)
    found = messages.get((channel, str(params.get("ts") or "")))
    if method in ("chat.appendStream", "chat.stopStream"):
        if found is None:
            return "message_not_found"
        if not found.streaming:
            return "message_not_in_streaming_state"
        if method == "chat.appendStream" and not params.get("markdown_text"):
            return "invalid_arguments"
        return _content_error(params, need=False) or found
    if method == "chat.update":
        if found is None or found.ephemeral_to is not None:
            return "message_not_found"
        return _content_error(params) or found
    errors.append(f"unknown method {method}")
    return "unknown_method"
