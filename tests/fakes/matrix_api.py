"""FakeMatrix: a local Matrix homeserver (the client-server API nio uses) on 127.0.0.1.

Endpoints (`/_matrix/client/v3/...`, the access token as `Authorization: Bearer`):
`account/whoami`, `sync` (long polling with `since` tokens and `timeout`; joined rooms
with their timeline and `summary`, pending invites with their `invite_state`),
`join/{room}` and `rooms/{room}/join`, `rooms/{room}/send/{type}/{txn}` (the same txn
id is the same event: idempotent as the spec says), `rooms/{room}/typing/{user}`,
`rooms/{room}/receipt/...`, `profile/{user}` and `profile/{user}/displayname`.

The published limits it keeps:
- an event of more than 65,536 bytes (its JSON, envelope included) is refused with
  413 `M_TOO_LARGE`;
- a user may send `burst` events at once and then one every `1/rate` s (Synapse's
  rc_message); past that 429 `M_LIMIT_EXCEEDED` with `retry_after_ms`.
The bot's own events come back in its /sync like every other event (a real server echoes
them), so an adapter that answered itself would be seen.

    with FakeMatrix() as hs:
        room = hs.dm(ALICE)            # ALICE invites the bot to a direct room
        hs.say(room, ALICE, "hello")
        hs.wait_for(lambda: hs.texts(room))
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from .aio_server import ThreadedAioServer
from .waiting import wait_on

TOKEN = "syt_hermes_fake_token"
BOT = "@hermes:fake.local"
BOT_NAME = "Hermes"
EVENT_MAX = 65_536
PREFIX = "/_matrix/client/v3"


@dataclass
class Limits:
    """Per-user send limits (Synapse's defaults: rc_message per_second 0.2, burst 10)."""

    rate: float = 0.2
    burst: int = 10


@dataclass
class Sent:
    """One event the bot sent (the fake's record)."""

    room: str
    type: str
    content: dict[str, Any]
    event_id: str
    time: float
    size: int


@dataclass
class _Room:
    members: set[str] = field(default_factory=set)
    encrypted: bool = False
    names: dict[str, str] = field(default_factory=dict)


class FakeMatrix(ThreadedAioServer):
    """In-process fake homeserver. Use as a context manager or start()/stop()."""

    def __init__(self, limits: Limits | None = None) -> None:
        super().__init__()
        self.limits = limits or Limits()
        self.lock = threading.Condition()
        self.rooms: dict[str, _Room] = {}
        self.stream: list[tuple[str, str, dict[str, Any]]] = []  # (kind, room, event)
        self.sent: list[Sent] = []
        self.refused: list[tuple[int, str]] = []  # (status, errcode) of refused sends
        self.calls: list[tuple[str, str]] = []  # (method, path)
        self.typing: list[str] = []  # rooms a typing notice was sent to
        self.displayname = BOT_NAME
        self._txns: dict[str, str] = {}
        self._bucket = (float(self.limits.burst), time.monotonic())
        self._ids = itertools.count(1)
        self._wake: asyncio.Condition | None = None
        self._closing = False

    # -- lifecycle (tests/fakes/aio_server.py) -----------------------------------------
    name = "fake-matrix"

    def _app(self) -> web.Application:
        self._wake = asyncio.Condition()
        app = web.Application(client_max_size=4 * EVENT_MAX)
        routes = (("GET", "/account/whoami", self._whoami), ("GET", "/sync", self._sync),
                  ("POST", "/join/{room}", self._join), ("POST", "/rooms/{room}/join", self._join),
                  ("PUT", "/rooms/{room}/send/{type}/{txn}", self._send),
                  ("PUT", "/rooms/{room}/typing/{user}", self._typing),
                  ("POST", "/rooms/{room}/receipt/{kind}/{event}", self._ok),
                  ("POST", "/rooms/{room}/read_markers", self._ok),
                  ("GET", "/profile/{user}", self._profile),
                  ("GET", "/profile/{user}/displayname", self._profile))
        for method, path, handler in routes:
            app.router.add_route(method, PREFIX + path, handler)
        return app

    def _stopping(self) -> None:
        self._closing = True  # pending long polls answer now (cleanup waits for them)
        if self._loop is not None:
            asyncio.run_coroutine_threadsafe(self._notify(), self._loop)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- scripting (from the test's thread) --------------------------------------------
    def _event_id(self) -> str:
        return f"$ev{next(self._ids)}:fake.local"

    def _push(self, kind: str, room: str, event: dict[str, Any]) -> None:
        with self.lock:
            self.stream.append((kind, room, event))
            self.lock.notify_all()
        if self._loop is not None:
            asyncio.run_coroutine_threadsafe(self._notify(), self._loop)

    async def _notify(self) -> None:
        assert self._wake is not None
        async with self._wake:
            self._wake.notify_all()

    def invite(self, room: str, inviter: str, *, direct: bool = False,
               encrypted: bool = False, members: tuple[str, ...] = ()) -> str:
        """`inviter` invites the bot into `room` (created with `members`)."""
        self.rooms.setdefault(room, _Room({inviter, *members}, encrypted))
        invite_state = [{"type": "m.room.member", "state_key": BOT, "sender": inviter,
                         "content": {"membership": "invite", "is_direct": direct}}]
        if encrypted:
            invite_state.append({"type": "m.room.encryption", "state_key": "", "sender": inviter,
                                 "content": {"algorithm": "m.megolm.v1.aes-sha2"}})
        self._push("invite", room, {"invite_state": {"events": invite_state}})
        return room

    def dm(self, user: str) -> str:
        """`user` opens a direct room with the bot; the room id."""
        return self.invite(f"!dm{user.split(':')[0].lstrip('@')}:fake.local", user, direct=True)

    def say(self, room: str, user: str, body: str, *, formatted: str | None = None,
            mentions: list[str] | None = None, thread: str | None = None,
            msgtype: str = "m.text", encrypted: bool = False) -> str:
        """A message from `user` in `room`; its event id."""
        content: dict[str, Any] = {"msgtype": msgtype, "body": body}
        if formatted is not None:
            content.update(format="org.matrix.custom.html", formatted_body=formatted)
        if mentions is not None:
            content["m.mentions"] = {"user_ids": mentions}
        if thread is not None:
            content["m.relates_to"] = {"rel_type": "m.thread", "event_id": thread}
        kind = "m.room.message"
        if encrypted:
            kind, content = "m.room.encrypted", {"algorithm": "m.megolm.v1.aes-sha2",
                                                 "ciphertext": "AwgA...", "session_id": "s1"}
        event_id = self._event_id()
        self._push("timeline", room, {"type": kind, "sender": user, "event_id": event_id,
                                      "origin_server_ts": int(time.time() * 1000),
                                      "content": content})
        return event_id

    def react(self, room: str, user: str, event_id: str, key: str) -> str:
        """`user` reacts to `event_id` with `key` (an m.annotation); the reaction's id."""
        reaction = self._event_id()
        self._push("timeline", room, {
            "type": "m.reaction", "sender": user, "event_id": reaction,
            "origin_server_ts": int(time.time() * 1000),
            "content": {"m.relates_to": {"rel_type": "m.annotation", "event_id": event_id,
                                         "key": key}}})
        return reaction

    def wait_for(self, condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
        return wait_on(self.lock, condition, timeout, what)

    def messages(self, room: str, thread: str | None = None) -> list[Sent]:
        """The bot's messages (not edits) in `room` (in `thread` if given), in order."""
        with self.lock:
            return [s for s in self.sent if s.room == room and s.type == "m.room.message"
                    and _relation(s.content).get("rel_type") != "m.replace"
                    and (thread is None or _relation(s.content).get("event_id") == thread)]

    def edits(self, room: str) -> list[Sent]:
        with self.lock:
            return [s for s in self.sent if s.room == room
                    and _relation(s.content).get("rel_type") == "m.replace"]

    def texts(self, room: str, thread: str | None = None) -> list[str]:
        """The current body of each of the bot's messages in `room` (edits applied)."""
        latest = {e.content["m.relates_to"]["event_id"]: e.content["m.new_content"]["body"]
                  for e in self.edits(room)}
        return [latest.get(m.event_id, m.content.get("body", ""))
                for m in self.messages(room, thread)]

    # -- the API -----------------------------------------------------------------------
    def _authorized(self, request: web.Request) -> bool:
        with self.lock:
            self.calls.append((request.method, request.path))
            self.lock.notify_all()
        header = request.headers.get("Authorization", "")
        return header == f"Bearer {TOKEN}" or request.query.get("access_token") == TOKEN

    @staticmethod
    def _error(status: int, code: str, message: str, **extra: Any) -> web.Response:
        return web.json_response({"errcode": code, "error": message, **extra}, status=status)

    async def _whoami(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.")
        return web.json_response({"user_id": BOT, "device_id": "HERMESDEV"})

    async def _ok(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.")
        return web.json_response({})

    async def _profile(self, request: web.Request) -> web.Response:
        self._authorized(request)
        if request.match_info["user"] == BOT:
            return web.json_response({"displayname": self.displayname})
        return self._error(404, "M_NOT_FOUND", "Profile was not found")

    async def _typing(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.")
        with self.lock:
            self.typing.append(request.match_info["room"])
        return web.json_response({})

    async def _join(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.")
        room = request.match_info["room"]
        with self.lock:
            if room not in self.rooms:
                return self._error(404, "M_NOT_FOUND", "No known servers")
            self.rooms[room].members.add(BOT)
        self._push("join", room, {})
        return web.json_response({"room_id": room})

    def _take(self) -> float:
        """A token of the sender's bucket: 0, or the ms to wait (M_LIMIT_EXCEEDED)."""
        tokens, stamp = self._bucket
        now = time.monotonic()
        tokens = min(float(self.limits.burst), tokens + (now - stamp) * self.limits.rate)
        if tokens < 1:
            self._bucket = (tokens, now)
            return (1 - tokens) / self.limits.rate * 1000
        self._bucket = (tokens - 1, now)
        return 0.0

    async def _send(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.")
        room, kind, txn = (request.match_info[k] for k in ("room", "type", "txn"))
        raw = await request.read()
        with self.lock:
            if txn in self._txns:
                return web.json_response({"event_id": self._txns[txn]})
            if BOT not in self.rooms.get(room, _Room()).members:
                return self._error(403, "M_FORBIDDEN", "User not in room")
            content = json.loads(raw)
            event_id = self._event_id()
            event = {"type": kind, "sender": BOT, "event_id": event_id, "room_id": room,
                     "origin_server_ts": int(time.time() * 1000), "content": content,
                     "unsigned": {"age": 0}, "hashes": {"sha256": "x" * 43},
                     "signatures": {"fake.local": {"ed25519:a": "x" * 86}}}
            size = len(json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode())
            if size > EVENT_MAX:
                self.refused.append((413, "M_TOO_LARGE"))
                return self._error(413, "M_TOO_LARGE", "event too large")
            wait = self._take()
            if wait:
                self.refused.append((429, "M_LIMIT_EXCEEDED"))
                return self._error(429, "M_LIMIT_EXCEEDED", "Too Many Requests",
                                   retry_after_ms=int(wait) + 1)
            self._txns[txn] = event_id
            self.sent.append(Sent(room, kind, content, event_id, time.monotonic(), size))
        self._push("timeline", room, {k: v for k, v in event.items() if k != "room_id"})
        return web.json_response({"event_id": event_id})

    def _batch(self, since: int) -> dict[str, Any]:
        joined: dict[str, Any] = {}
        invited: dict[str, Any] = {}
        with self.lock:
            for kind, room, event in self.stream[since:]:
                state = self.rooms.get(room, _Room())
                if kind == "invite" and BOT not in state.members:
                    invited[room] = event
                elif BOT in state.members:
                    entry = joined.setdefault(room, {
                        "timeline": {"events": [], "limited": False, "prev_batch": f"p{since}"},
                        "state": {"events": []},
                        "summary": {"m.joined_member_count": len(state.members),
                                    "m.invited_member_count": 0}})
                    if kind == "timeline":
                        entry["timeline"]["events"].append(event)
                    if kind == "join" and state.encrypted:
                        entry["state"]["events"].append({
                            "type": "m.room.encryption", "state_key": "", "sender": BOT,
                            "event_id": self._event_id(), "origin_server_ts": 0,
                            "content": {"algorithm": "m.megolm.v1.aes-sha2"}})
        return {"next_batch": str(len(self.stream)), "rooms": {"join": joined, "invite": invited}}

    async def _sync(self, request: web.Request) -> web.Response:
        if not self._authorized(request):
            return self._error(401, "M_UNKNOWN_TOKEN", "Invalid access token passed.")
        since = int(request.query.get("since") or 0)
        deadline = time.monotonic() + int(request.query.get("timeout") or 0) / 1000
        assert self._wake is not None
        while True:
            batch = self._batch(since)
            rooms = batch["rooms"]
            if rooms["join"] or rooms["invite"] or time.monotonic() >= deadline or self._closing:
                return web.json_response(batch)
            async with self._wake:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), deadline - time.monotonic())


def _relation(content: dict[str, Any]) -> dict[str, Any]:
    relation = content.get("m.relates_to")
    return relation if isinstance(relation, dict) else {}
