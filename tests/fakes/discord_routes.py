"""The REST routes of FakeDiscord (tests/fakes/discord_api.py), called with its lock held:
answer(fake, method, path, body) -> (status, body, headers, channel id or None)."""

from __future__ import annotations

import asyncio
import re
import time
from typing import TYPE_CHECKING, Any

from .discord_rules import content_error, too_many

if TYPE_CHECKING:
    from .discord_api import FakeDiscord

Answer = tuple[int, Any, dict[str, str], int | None]
MESSAGES = re.compile(r"^/channels/(\d+)/messages(?:/(\d+))?(/threads)?$")
INTERACTION_WINDOW = 3.0  # s: an interaction not answered by then is gone (10062)


def _error(status: int, code: int, message: str, channel: int | None = None) -> Answer:
    return status, {"code": code, "message": message}, {}, channel


def answer(fake: FakeDiscord, method: str, path: str, body: Any) -> Answer:  # noqa: PLR0911
    from .discord_api import BOT

    if method == "GET" and path in ("/gateway/bot", "/gateway"):
        return 200, {"url": f"ws://127.0.0.1:{fake.port}/gateway", "shards": 1,
                     "session_start_limit": {"total": 1000, "remaining": 999,
                                             "reset_after": 0, "max_concurrency": 1}}, {}, None
    if method == "GET" and path == "/users/@me":
        return 200, BOT, {}, None
    if method == "GET" and path == "/oauth2/applications/@me":
        return 200, {"id": BOT["id"], "name": "hermes", "description": "", "icon": None,
                     "bot_public": False, "bot_require_code_grant": False, "flags": 1 << 19,
                     "owner": {**BOT, "id": "1", "username": "owner", "bot": False},
                     "verify_key": "0" * 64, "team": None, "summary": ""}, {}, None
    if path.startswith("/interactions/") and path.endswith("/callback"):
        ident = path.split("/")[2]
        pressed = fake.pending.pop(ident, None)
        if pressed is None or time.monotonic() - pressed > INTERACTION_WINDOW:
            return _error(404, 10062, "Unknown interaction")
        return 204, None, {}, None
    if method == "PUT" and re.match(r"^/applications/\d+/commands$", path):
        return 200, body or [], {}, None
    typing = re.match(r"^/channels/(\d+)/typing$", path)
    if method == "POST" and typing:
        return 204, None, {}, int(typing.group(1))
    found = MESSAGES.match(path)
    if found is None:
        return _error(404, 0, "404: Not Found")
    channel, message_id, thread = int(found.group(1)), found.group(2), found.group(3)
    if method == "POST" and thread and message_id:
        return _start_thread(fake, channel, int(message_id), body)
    return _message(fake, method, channel, message_id, body)


def _message(fake: FakeDiscord, method: str, channel: int, message_id: str | None,
             body: Any) -> Answer:
    """Create (POST) or edit (PATCH) a message of the bot."""
    from .discord_api import BOT_ID

    if method not in ("POST", "PATCH") or (method == "PATCH") != bool(message_id):
        return _error(405, 0, "405: Method Not Allowed", channel)
    if method == "PATCH":
        old = fake.messages.get(int(message_id or 0))
        if old is None or old["channel_id"] != str(channel):
            return _error(404, 10008, "Unknown Message", channel)
        if old["author"]["id"] != str(BOT_ID):
            return _error(403, 50005, "Cannot edit a message authored by another user", channel)
        body = {**{k: old.get(k) for k in ("content", "components")}, **(body or {})}
    problem = content_error(body)
    if problem is not None:
        return 400, problem, {}, channel
    headers, wait = fake.limits.take("edit" if method == "PATCH" else "create", channel)
    if wait is not None:
        out, extra = too_many(wait)
        return 429, out, {**headers, **extra}, channel
    if method == "PATCH":
        message = fake.messages[int(message_id or 0)]
        message.update(content=body.get("content") or "", components=body.get("components") or [],
                       edited_timestamp="2026-01-01T00:00:01+00:00")
    else:
        message = _create(fake, channel, body)
    return 200, message, headers, channel


def _create(fake: FakeDiscord, channel: int, body: dict[str, Any]) -> dict[str, Any]:
    from .discord_api import BOT

    message_id = next(fake._ids)
    message = {"id": str(message_id), "channel_id": str(channel), "type": 0, "author": BOT,
               "content": body.get("content") or "", "tts": False,
               "timestamp": "2026-01-01T00:00:00+00:00", "edited_timestamp": None,
               "mention_everyone": False, "mentions": [], "mention_roles": [],
               "attachments": [], "embeds": [], "pinned": False,
               "components": body.get("components") or [],
               "allowed_mentions": body.get("allowed_mentions")}
    if body.get("message_reference"):
        message["message_reference"] = body["message_reference"]
        message["type"] = 19  # a reply
    where = fake.channels.get(channel)
    if where is not None:
        message["guild_id"] = where["guild_id"]
    fake.messages[message_id] = message
    # Discord tells every bot of every message in its channels, its own ones too
    asyncio.get_running_loop().create_task(fake._dispatch("MESSAGE_CREATE", message))
    return message


def _start_thread(fake: FakeDiscord, channel: int, message_id: int, body: Any) -> Answer:
    from .discord_api import BOT_ID, NO_THREADS_ID

    parent = fake.channels.get(channel)
    if parent is None or parent["type"] != 0 or channel == NO_THREADS_ID:
        return _error(403, 50013, "Missing Permissions", channel)
    if message_id not in fake.messages:
        return _error(404, 10008, "Unknown Message", channel)
    if message_id in fake.channels:
        return _error(400, 160004, "A thread has already been created for this message", channel)
    name = str((body or {}).get("name") or "")
    if not 1 <= len(name) <= 100:
        return 400, {"code": 50035, "message": "Invalid Form Body",
                     "errors": {"name": {"_errors": [{"code": "BASE_TYPE_BAD_LENGTH"}]}}}, {}, channel
    thread = {"id": str(message_id), "type": 11, "guild_id": parent["guild_id"],
              "parent_id": str(channel), "owner_id": str(BOT_ID), "name": name,
              "last_message_id": None, "rate_limit_per_user": 0, "message_count": 0,
              "member_count": 1, "flags": 0, "thread_metadata": {
                  "archived": False, "auto_archive_duration": (body or {}).get(
                      "auto_archive_duration", 1440),
                  "archive_timestamp": "2026-01-01T00:00:00+00:00", "locked": False}}
    fake.channels[message_id] = thread  # a thread started from a message has its id
    asyncio.get_running_loop().create_task(
        fake._dispatch("THREAD_CREATE", dict(thread, newly_created=True)))
    return 201, thread, {}, channel
