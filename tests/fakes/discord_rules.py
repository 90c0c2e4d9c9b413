"""Discord's published limits as the fake applies them (discord.com/developers/docs):

- a message's `content` is at most 2,000 characters; more is refused with 400
  `{"code": 50035, "message": "Invalid Form Body", "errors": {...}}`;
- a message needs content, an embed, a component or a file (else 400, code 50006);
- rate limits are per route and per channel (the "major parameter"): here 5 calls per
  5 s for creating messages in a channel and 5 per 5 s for editing them (a fixed window
  from its first call, as Discord's buckets reset). Every answer carries
  X-RateLimit-Limit / -Remaining / -Reset / -Reset-After / -Bucket; over the limit the
  answer is 429 with `retry_after` (seconds, a float) in the body and Retry-After;
- the Message Content intent (1 << 15) is privileged: without it a guild message that
  does not mention the bot arrives with empty content.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

LIMIT = 2000
MESSAGE_CONTENT = 1 << 15


def content_error(body: Any) -> dict[str, Any] | None:
    """The 400 body for a message payload Discord refuses, else None."""
    body = body if isinstance(body, dict) else {}
    content = body.get("content")
    if content is not None and len(str(content)) > LIMIT:
        return {"code": 50035, "message": "Invalid Form Body", "errors": {"content": {
            "_errors": [{"code": "BASE_TYPE_MAX_LENGTH",
                         "message": f"Must be {LIMIT} or fewer in length."}]}}}
    if not content and not body.get("embeds") and not body.get("components") \
            and not body.get("attachments") and not body.get("sticker_ids"):
        return {"code": 50006, "message": "Cannot send an empty message"}
    return None


@dataclass
class _Window:
    start: float
    used: int = 0


@dataclass
class RateLimits:
    """Fixed windows per (route, channel); `forced`: the next call of a channel is 429."""

    limit: int
    per: float
    windows: dict[tuple[str, int], _Window] = field(default_factory=dict)
    forced: dict[int, float] = field(default_factory=dict)
    blocked: dict[int, float] = field(default_factory=dict)  # channel -> until (forced 429s)
    refused: int = 0

    def take(self, route: str, channel: int) -> tuple[dict[str, str], float | None]:
        """(headers, None) when the call may go, (headers, retry_after) when it is 429."""
        now = time.monotonic()
        if channel in self.forced:
            self.blocked[channel] = now + self.forced.pop(channel)
        if self.blocked.get(channel, 0.0) > now:
            self.refused += 1
            wait = self.blocked[channel] - now
            return self._headers(route, 0, wait, channel), wait
        window = self.windows.get((route, channel))
        if window is None or now - window.start >= self.per:
            window = self.windows[(route, channel)] = _Window(now)
        reset_after = self.per - (now - window.start)
        if window.used >= self.limit:
            self.refused += 1
            return self._headers(route, 0, reset_after, channel), reset_after
        window.used += 1
        return self._headers(route, self.limit - window.used, reset_after, channel), None

    def _headers(self, route: str, remaining: int, reset_after: float, channel: int) -> dict[str, str]:
        return {"X-RateLimit-Limit": str(self.limit), "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
                "X-RateLimit-Reset-After": f"{reset_after:.3f}",
                "X-RateLimit-Bucket": f"{route}-bucket"}


def too_many(retry_after: float) -> tuple[dict[str, Any], dict[str, str]]:
    """The 429 body and its extra headers."""
    return ({"message": "You are being rate limited.", "retry_after": round(retry_after, 3),
             "global": False},
            {"Retry-After": str(max(1, math.ceil(retry_after))), "X-RateLimit-Scope": "user"})
