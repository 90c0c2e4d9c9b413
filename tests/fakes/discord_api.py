"""FakeDiscord: a local Discord (REST API v10 + gateway websocket) on 127.0.0.1, for the
chat platform tests. aiohttp (discord.py's own dependency) in a thread of its own.

REST (under /api/v10, `Authorization: Bot <token>` else 401):
  GET /gateway/bot (the websocket URL: this server's /gateway), GET /users/@me,
  POST /channels/{id}/messages, PATCH /channels/{id}/messages/{id},
  POST /channels/{id}/messages/{id}/threads, POST /channels/{id}/typing,
  POST /interactions/{id}/{token}/callback, GET /attachments/... (the CDN).
Gateway: HELLO -> IDENTIFY (token, intents) -> READY (+ GUILD_CREATE), heartbeats
acknowledged; tests dispatch MESSAGE_CREATE / INTERACTION_CREATE; THREAD_CREATE when the
bot starts a thread. Published limits (tests/fakes/discord_rules.py): content of at most
2,000 characters (else 400, code 50035); per channel and route, 5 messages per 5 s
(X-RateLimit-* headers on every answer; over it: 429 with retry_after and Retry-After);
without the Message Content intent a message's content arrives empty.
Every REST call is recorded (`calls`) for assertions.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import WSMsgType, web

from .discord_rules import MESSAGE_CONTENT, RateLimits
from .waiting import wait_on

TOKEN = "MTAwMDAwMDAwMDAwMDAwMDAx.fake.discord-token"
BOT_ID = 100000000000000001
GUILD_ID = 200000000000000001
CHANNEL_ID = 300000000000000001  # #general: threads allowed
NO_THREADS_ID = 300000000000000002  # #announcements: the bot may not start threads
VIA = "1.1 google"  # Discord answers through its proxy (discord.py trusts no 429 without it)
BOT = {"id": str(BOT_ID), "username": "hermes", "discriminator": "0", "global_name": "Hermes",
       "avatar": None, "bot": True, "flags": 0}


@dataclass
class Call:
    method: str
    path: str
    body: Any
    time: float
    status: int
    channel: int | None = None


def user(user_id: int) -> dict[str, Any]:
    return {"id": str(user_id), "username": f"user{user_id}", "discriminator": "0",
            "global_name": f"User {user_id}", "avatar": None}


class FakeDiscord:
    """In-process fake Discord. Use as a context manager or start()/stop()."""

    def __init__(self, *, token: str = TOKEN, rate: tuple[int, float] = (5, 5.0)) -> None:
        self.token = token
        self.limits = RateLimits(*rate)
        self.lock = threading.Condition()
        self.calls: list[Call] = []
        self.messages: dict[int, dict[str, Any]] = {}  # id -> message (everyone's)
        self.channels: dict[int, dict[str, Any]] = {
            CHANNEL_ID: self._channel(CHANNEL_ID, "general"),
            NO_THREADS_ID: self._channel(NO_THREADS_ID, "announcements")}
        self.files: dict[str, bytes] = {}
        self.identified: list[dict[str, Any]] = []  # IDENTIFY payloads
        self.heartbeats = 0
        self.heartbeat_ms = 41250  # HELLO's heartbeat_interval (Discord's)
        self.pending: dict[str, float] = {}  # interaction id -> when it was dispatched
        self._ids = itertools.count(400000000000000001)
        self._sockets: list[tuple[web.WebSocketResponse, Any]] = []
        self._seq = itertools.count(1)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    @staticmethod
    def _channel(channel_id: int, name: str) -> dict[str, Any]:
        return {"id": str(channel_id), "type": 0, "guild_id": str(GUILD_ID), "name": name,
                "position": 0, "permission_overwrites": [], "nsfw": False, "parent_id": None}

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> FakeDiscord:
        ready = threading.Event()

        def run() -> None:
            self.loop = asyncio.new_event_loop()
            app = web.Application()
            app.router.add_route("*", "/gateway", self._gateway)
            app.router.add_get("/attachments/{name:.*}", self._cdn)
            app.router.add_route("*", "/api/v10/{path:.*}", self._rest)
            self._runner = web.AppRunner(app, access_log=None)
            self.loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            self.loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            ready.set()
            self.loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True, name="fake-discord")
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        loop, runner = self.loop, self._runner
        if loop is None or runner is None:
            return

        async def down() -> None:
            for ws, _ in list(self._sockets):
                await ws.close()
            await runner.cleanup()

        asyncio.run_coroutine_threadsafe(down(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> FakeDiscord:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    # -- scripting (from the test's thread) --------------------------------------------
    def dm(self, user_id: int, text: str, **kw: Any) -> int:
        """A direct message from `user_id` (its DM channel id is the user id + 1)."""
        return self.say(user_id + 1, user_id, text, guild=False, **kw)

    def say(self, channel_id: int, user_id: int, text: str, *, guild: bool = True,  # noqa: PLR0913
            mention: bool = False, attachment: tuple[str, str, bytes] | None = None,
            author: dict[str, Any] | None = None) -> int:
        """A message in a channel or thread (`mention`: it starts with <@bot>;
        `attachment`: (file name, content type, bytes)); returns its id."""
        message_id = next(self._ids)
        content = f"<@{BOT_ID}> {text}" if mention else text
        message: dict[str, Any] = {
            "id": str(message_id), "channel_id": str(channel_id), "type": 0,
            "author": author or user(user_id), "content": content, "tts": False,
            "timestamp": "2026-01-01T00:00:00+00:00", "edited_timestamp": None,
            "mention_everyone": False, "mentions": [BOT] if mention else [],
            "mention_roles": [], "attachments": [], "embeds": [], "pinned": False}
        if guild:
            message["guild_id"] = str(GUILD_ID)
            message["member"] = {"roles": [], "joined_at": "2026-01-01T00:00:00+00:00",
                                 "deaf": False, "mute": False, "flags": 0}
        if attachment is not None:
            name, kind, data = attachment
            ident = next(self._ids)  # the CDN path: ids and a URL-safe form of the name
            key = f"{channel_id}/{ident}/{re.sub(r'[^A-Za-z0-9._-]', '_', name)}"
            self.files[key] = data
            url = f"http://127.0.0.1:{self.port}/attachments/{key}"
            message["attachments"] = [{"id": str(ident), "filename": name,
                                       "size": len(data), "url": url, "proxy_url": url,
                                       "content_type": kind}]
        with self.lock:
            self.messages[message_id] = message
        self.dispatch("MESSAGE_CREATE", self._seen(message))
        return message_id

    def press(self, message_id: int, user_id: int, custom_id: str) -> str:
        """A press of a button of the bot's message; returns the interaction id."""
        message = self.messages[message_id]
        return self._interaction(3, int(message["channel_id"]), user_id,
                                 {"custom_id": custom_id, "component_type": 2},
                                 guild="guild_id" in message, message=message)

    def command(self, channel_id: int, user_id: int, name: str, text: str | None = None, *,
                guild: bool = False) -> str:
        """A slash command used in a channel (`text`: its `text` option)."""
        options = [] if text is None else [{"name": "text", "type": 3, "value": text}]
        return self._interaction(2, channel_id, user_id, {
            "id": str(next(self._ids)), "name": name, "type": 1, "options": options},
            guild=guild)

    def _interaction(self, kind: int, channel_id: int, user_id: int, inner: dict[str, Any],  # noqa: PLR0913
                     *, guild: bool, message: dict[str, Any] | None = None) -> str:
        ident = str(next(self._ids))
        data: dict[str, Any] = {
            "id": ident, "application_id": str(BOT_ID), "type": kind, "token": f"itoken{ident}",
            "version": 1, "channel_id": str(channel_id), "data": inner,
            "app_permissions": "0", "locale": "en-US", "entitlements": [],
            "authorizing_integration_owners": {}, "attachment_size_limit": 8388608}
        if message is not None:
            data["message"] = message
        with self.lock:  # the partial channel Discord sends with an interaction
            data["channel"] = dict(self.channels.get(channel_id) or {
                "id": str(channel_id), "type": 1, "last_message_id": None, "flags": 0,
                "recipients": [user(user_id)]})
        if guild:
            data["guild_id"] = str(GUILD_ID)
            data["member"] = {"user": user(user_id), "roles": [], "permissions": "0",
                              "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False,
                              "mute": False, "flags": 0}
        else:
            data["user"] = user(user_id)
        with self.lock:
            self.pending[ident] = time.monotonic()
        self.dispatch("INTERACTION_CREATE", data)
        return ident

    def _seen(self, message: dict[str, Any]) -> dict[str, Any]:
        """The message as the bot receives it (no Message Content intent: no content)."""
        intents = self.identified[-1]["intents"] if self.identified else 0
        if intents & MESSAGE_CONTENT or str(BOT_ID) in (m["id"] for m in message["mentions"]) \
                or "guild_id" not in message:
            return message
        return dict(message, content="", attachments=[], embeds=[])

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send a DISPATCH to every connected bot."""
        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(self._dispatch(event, data), self.loop).result(5)

    async def _dispatch(self, event: str, data: dict[str, Any]) -> None:
        for ws, packer in list(self._sockets):
            await _send(ws, packer, {"op": 0, "t": event, "s": next(self._seq), "d": data})

    def force_429(self, channel: int, retry_after: float = 1.0) -> None:
        """The next create/edit in the channel gets a 429 naming `retry_after`."""
        with self.lock:
            self.limits.forced[channel] = retry_after

    # -- reading -----------------------------------------------------------------------
    def recorded(self, method: str | None = None, channel: int | None = None) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if (method is None or c.method == method)
                    and (channel is None or c.channel == channel)]

    def sent(self, channel: int) -> list[dict[str, Any]]:
        """The bot's messages in a channel (current content), in order."""
        with self.lock:
            return [m for m in self.messages.values() if m["channel_id"] == str(channel)
                    and m["author"]["id"] == str(BOT_ID)]

    def texts(self, channel: int) -> list[str]:
        return [m["content"] for m in self.sent(channel)]

    def threads(self) -> list[dict[str, Any]]:
        with self.lock:
            return [c for c in self.channels.values() if c["type"] == 11]

    def wait_for(self, condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
        """Poll `condition` until truthy or the deadline passes (then AssertionError)."""
        return wait_on(self.lock, condition, timeout, what)

    # -- the gateway -------------------------------------------------------------------
    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        packer = zlib.compressobj() if request.query.get("compress") == "zlib-stream" else None
        await _send(ws, packer, {"op": 10, "d": {"heartbeat_interval": self.heartbeat_ms},
                                 "s": None, "t": None})
        async for frame in ws:
            if frame.type != WSMsgType.TEXT:
                continue
            payload = json.loads(frame.data)
            if payload["op"] == 1:
                self.heartbeats += 1
                await _send(ws, packer, {"op": 11, "d": None, "s": None, "t": None})
            elif payload["op"] == 2:
                if payload["d"].get("token") != self.token:
                    await ws.close(code=4004, message=b"Authentication failed.")
                    break
                with self.lock:
                    self.identified.append(payload["d"])
                self._sockets.append((ws, packer))
                await self._ready(ws, packer)
        self._sockets = [(w, p) for w, p in self._sockets if w is not ws]
        return ws

    async def _ready(self, ws: web.WebSocketResponse, packer: Any) -> None:
        url = f"ws://127.0.0.1:{self.port}/gateway"
        await _send(ws, packer, {"op": 0, "t": "READY", "s": next(self._seq), "d": {
            "v": 10, "user": BOT, "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
            "session_id": "fake-session", "resume_gateway_url": url, "private_channels": [],
            "relationships": [], "application": {"id": str(BOT_ID), "flags": 0}}})
        with self.lock:
            channels = [c for c in self.channels.values() if c["type"] != 11]
            threads = self.threads()
        await _send(ws, packer, {"op": 0, "t": "GUILD_CREATE", "s": next(self._seq), "d": {
            "id": str(GUILD_ID), "name": "Fake Guild", "owner_id": "1", "roles": [
                {"id": str(GUILD_ID), "name": "@everyone", "permissions": "0", "position": 0,
                 "color": 0, "hoist": False, "managed": False, "mentionable": False}],
            "emojis": [], "features": [], "member_count": 3, "members": [],
            "channels": channels, "threads": threads, "presences": [], "voice_states": [],
            "stickers": [], "large": False, "unavailable": False,
            "joined_at": "2026-01-01T00:00:00+00:00", "premium_tier": 0,
            "afk_timeout": 300, "verification_level": 0, "default_message_notifications": 0,
            "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0,
            "preferred_locale": "en-US", "system_channel_flags": 0}})

    # -- REST --------------------------------------------------------------------------
    async def _cdn(self, request: web.Request) -> web.Response:
        data = self.files.get(request.match_info["name"])
        if data is None:
            return _json({"message": "404: Not Found", "code": 0}, 404, {})
        return web.Response(body=data, content_type="application/octet-stream")

    async def _rest(self, request: web.Request) -> web.Response:
        from .discord_routes import answer  # the routes, split out by size

        path = "/" + request.match_info["path"]
        body: Any = None
        if request.can_read_body:
            raw = await request.read()
            body = _body(raw, request.content_type)
        auth = request.headers.get("Authorization", "")
        with self.lock:
            if auth != f"Bot {self.token}" and not path.startswith("/interactions/"):
                status, out, headers, channel = 401, {"message": "401: Unauthorized",
                                                      "code": 0}, {}, None
            else:
                status, out, headers, channel = answer(self, request.method, path, body)
            self.calls.append(Call(request.method, path, body, time.monotonic(), status, channel))
            self.lock.notify_all()
        if status == 204:
            return web.Response(status=204, headers={**headers, "Via": VIA})
        return _json(out, status, headers)


def _json(body: Any, status: int, headers: dict[str, str]) -> web.Response:
    """Discord's JSON answers say exactly `application/json` (discord.py checks it)."""
    return web.Response(body=json.dumps(body).encode(), status=status, headers={
        **headers, "Content-Type": "application/json", "Via": VIA})


async def _send(ws: web.WebSocketResponse, packer: Any, payload: dict[str, Any]) -> None:
    data = json.dumps(payload)
    if packer is None:
        await ws.send_str(data)
    else:  # zlib-stream: one compressor for the connection, each payload sync-flushed
        await ws.send_bytes(packer.compress(data.encode()) + packer.flush(zlib.Z_SYNC_FLUSH))


def _body(raw: bytes, content_type: str) -> Any:
    if not raw:
        return None
    if content_type == "application/json":
        return json.loads(raw)
    if content_type.startswith("multipart/"):  # payload_json part (files are not kept)
        start = raw.find(b"{")
        end = raw.rfind(b"}")
        return json.loads(raw[start:end + 1]) if start >= 0 else None
    return raw.decode(errors="replace")
