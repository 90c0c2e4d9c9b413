"""FakeSlack: a local Slack (Web API over HTTP + a Socket Mode websocket) on 127.0.0.1.

The Web API answers at `base_url` (`.../api/<method>`), the bot token (xoxb-) on every
call but `apps.connections.open`, which takes the app token (xapp-) and returns this
fake's websocket URL. On the socket the fake says `hello`, then sends each scripted
event as an envelope (`events_api`, `interactive`) with an `envelope_id`; the app must
ack it (`{"envelope_id": ...}`) within 3 s - a late ack or one never sent is an error.

The Web API keeps Slack's published limits (rules in tests/fakes/slack_rules.py):
`text` past 40,000 characters is truncated silently (recorded as an error),
`markdown_text` past 12,000 per call is `msg_too_long`, a section block's text past
3,000 is `invalid_blocks`; per channel, writes (chat.postMessage, chat.startStream,
chat.stopStream, chat.postEphemeral) at most `post_limit` in `post_window` s, edits
(chat.update, chat.appendStream) at most `edit_limit` in `edit_window` s (chat.update's
~50 a minute); past that HTTP 429 `ratelimited` with a Retry-After header.

    with FakeSlack() as slack:
        slack.dm("U1", "hello")
        slack.wait_for(lambda: slack.texts("DU1"))
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, quote

from aiohttp import WSMsgType, web

from .aio_server import ThreadedAioServer
from .slack_rules import (
    ACK_DEADLINE,
    BOT_ID,
    BOT_TOKEN,
    BOT_USER,
    TEAM,
    Call,
    Limits,
    Message,
    check_write,
)
from .waiting import wait_on

APP_TOKEN = "xapp-1-A0FAKE-1-secret"
__all__ = ["APP_TOKEN", "BOT_ID", "BOT_TOKEN", "BOT_USER", "TEAM", "FakeSlack"]


class FakeSlack(ThreadedAioServer):
    """In-process fake Slack. Use as a context manager or start()/stop()."""

    def __init__(self, limits: Limits | None = None) -> None:
        super().__init__()
        self.limits = limits or Limits()
        self.lock = threading.Condition()
        self.calls: list[Call] = []
        self.errors: list[str] = []  # platform errors: truncations, late or missing acks
        self.messages: dict[tuple[str, str], Message] = {}  # (channel, ts) -> message
        self.files: dict[str, tuple[str, str, bytes]] = {}  # id -> (name, mimetype, data)
        self.envelopes: dict[str, dict[str, Any]] = {}  # id -> {"sent", "acked", "body"}
        self.connections = 0  # sockets opened so far
        self.open_sockets = 0  # sockets open now
        # a socket is opened only once this is set: a test holds it to play a slow
        # network (a leader elected, its socket not open yet)
        self.admit = threading.Event()
        self.admit.set()
        self._writes: dict[tuple[str, str], list[float]] = {}  # (kind, channel) -> times
        self._ts = itertools.count(1)
        self._outbox: asyncio.Queue[dict[str, Any]] | None = None

    # -- lifecycle (tests/fakes/aio_server.py) -----------------------------------------
    name = "fake-slack"

    def _app(self) -> web.Application:
        self._outbox = asyncio.Queue()
        app = web.Application()
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)
        app.router.add_get("/link", self._socket)
        app.router.add_get("/files-pri/{id}/{name}", self._download)
        return app

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    # -- scripting (from the test's thread) --------------------------------------------
    def next_ts(self) -> str:
        return f"{1_700_000_000 + next(self._ts)}.000100"

    def dm(self, user: str, text: str, *, files: list[tuple[str, str, bytes]] | None = None,
           thread_ts: str | None = None) -> str:
        """A direct message from `user` (in the DM channel D<user>); its ts."""
        return self._message(f"D{user}", user, text, "im", thread_ts=thread_ts, files=files)

    def say(self, channel: str, user: str, text: str, *, thread_ts: str | None = None,
            bot_id: str | None = None) -> str:
        """A channel message (a `message` event only); its ts."""
        return self._message(channel, user, text, "channel", thread_ts=thread_ts, bot_id=bot_id)

    def mention(self, channel: str, user: str, text: str, *, thread_ts: str | None = None) -> str:
        """`<@bot> text` in a channel: Slack sends it twice, as `app_mention` and as
        `message` (same ts); its ts."""
        text = f"<@{BOT_USER}> {text}"
        ts = self._message(channel, user, text, "channel", thread_ts=thread_ts)
        event = {"type": "app_mention", "user": user, "text": text, "ts": ts, "channel": channel,
                 "event_ts": ts, "team": TEAM}
        if thread_ts:
            event["thread_ts"] = thread_ts
        self._event(event)
        return ts

    def press(self, user: str, channel: str, ts: str, action_id: str) -> None:
        """`user` presses the button `action_id` of the bot's message (channel, ts)."""
        message = self.messages[(channel, ts)]
        action = next(e for b in message.blocks if b.get("type") == "actions"
                      for e in b["elements"] if e["action_id"] == action_id)
        self._envelope("interactive", {
            "type": "block_actions", "user": {"id": user, "team_id": TEAM},
            "team": {"id": TEAM, "domain": "fake"}, "api_app_id": "A0FAKE", "token": "legacy",
            "container": {"type": "message", "message_ts": ts, "channel_id": channel},
            "channel": {"id": channel, "name": channel}, "trigger_id": "trigger",
            "message": {"type": "message", "ts": ts, "text": message.text,
                        "blocks": message.blocks},
            "response_url": f"http://127.0.0.1:{self.port}/api/response",
            "actions": [{**action, "block_id": "approval", "action_ts": self.next_ts()}]})

    def slash(self, user: str, channel: str, text: str, command: str = "/hermes") -> None:
        """`user` runs the slash command `command text` in `channel` (no ts, no thread)."""
        self._envelope("slash_commands", {
            "token": "legacy", "team_id": TEAM, "team_domain": "fake", "channel_id": channel,
            "channel_name": "directmessage" if channel.startswith("D") else channel,
            "user_id": user, "user_name": user.lower(), "command": command, "text": text,
            "api_app_id": "A0FAKE", "is_enterprise_install": "false", "trigger_id": "trigger",
            "response_url": f"http://127.0.0.1:{self.port}/api/response"})

    def _message(self, channel: str, user: str, text: str, kind: str, *,  # noqa: PLR0913
                 thread_ts: str | None = None, files: list[tuple[str, str, bytes]] | None = None,
                 bot_id: str | None = None) -> str:
        ts = self.next_ts()
        event: dict[str, Any] = {"type": "message", "channel": channel, "user": user,
                                 "text": text, "ts": ts, "event_ts": ts, "channel_type": kind,
                                 "team": TEAM}
        if thread_ts:
            event["thread_ts"] = thread_ts
        if bot_id:
            event["bot_id"] = bot_id
            event["subtype"] = "bot_message"
        if files:
            event["subtype"] = "file_share"
            event["files"] = [self._file(*spec) for spec in files]
        self._event(event)
        return ts

    def _file(self, name: str, mimetype: str, data: bytes) -> dict[str, Any]:
        file_id = f"F{next(self._ts):08d}"
        with self.lock:
            self.files[file_id] = (name, mimetype, data)
        return {"id": file_id, "name": name, "mimetype": mimetype, "size": len(data),
                "url_private_download": self._file_url(file_id, name)}

    def _file_url(self, file_id: str, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/files-pri/{file_id}/{quote(name, safe='')}"

    def _event(self, event: dict[str, Any]) -> None:
        self._envelope("events_api", {
            "token": "legacy", "team_id": TEAM, "api_app_id": "A0FAKE", "event": event,
            "type": "event_callback", "event_id": f"Ev{uuid.uuid4().hex[:10]}",
            "event_time": int(time.time()), "authorizations": [
                {"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}]})

    def _envelope(self, kind: str, payload: dict[str, Any]) -> None:
        assert self._loop is not None and self._outbox is not None
        envelope = {"envelope_id": str(uuid.uuid4()), "type": kind, "payload": payload,
                    "accepts_response_payload": kind != "events_api", "retry_attempt": 0,
                    "retry_reason": ""}
        self._loop.call_soon_threadsafe(self._outbox.put_nowait, envelope)

    # -- reading -----------------------------------------------------------------------
    def recorded(self, method: str | None = None, channel: str | None = None) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if (method is None or c.method == method)
                    and (channel is None or c.params.get("channel") == channel
                         or c.params.get("channel_id") == channel)]

    def sent(self, channel: str, thread_ts: str | None = None) -> list[Message]:
        """The bot's messages in `channel` (in one thread if given), in order."""
        with self.lock:
            return [m for (ch, _), m in sorted(self.messages.items(), key=lambda i: float(i[0][1]))
                    if ch == channel and m.user == BOT_USER
                    and (thread_ts is None or m.thread_ts == thread_ts)]

    def texts(self, channel: str, thread_ts: str | None = None) -> list[str]:
        return [m.shown for m in self.sent(channel, thread_ts)]

    def problems(self) -> list[str]:
        """Platform errors so far, envelopes not acked (yet) included."""
        now = time.monotonic()
        with self.lock:
            late = [f"envelope {eid} ({e['body']['type']}) not acked after {now - e['sent']:.1f} s"
                    for eid, e in self.envelopes.items()
                    if e["acked"] is None and now - e["sent"] > ACK_DEADLINE]
            return [*self.errors, *late]

    def refused(self) -> list[str]:
        """The Web API errors answered so far (`method: error`), 429s aside."""
        with self.lock:
            return [f"{c.method}: {c.result.get('error')}" for c in self.calls
                    if c.status != 429 and isinstance(c.result, dict)
                    and c.result.get("ok") is False]

    def unacked(self) -> list[str]:
        with self.lock:
            return [eid for eid, e in self.envelopes.items() if e["acked"] is None]

    def wait_for(self, condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
        """Poll `condition` until truthy or the deadline passes (then AssertionError)."""
        return wait_on(self.lock, condition, timeout, what)

    # -- the socket --------------------------------------------------------------------
    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await asyncio.get_running_loop().run_in_executor(None, self.admit.wait)
        await ws.prepare(request)
        with self.lock:
            self.connections += 1
            self.open_sockets += 1
            self.lock.notify_all()
        await ws.send_json({"type": "hello", "num_connections": 1, "debug_info": {
            "host": "fake", "approximate_connection_time": 3600},
            "connection_info": {"app_id": "A0FAKE"}})
        sender = asyncio.create_task(self._send_envelopes(ws))
        try:
            async for frame in ws:
                if frame.type == WSMsgType.TEXT:
                    self._ack(json.loads(frame.data))
        finally:
            sender.cancel()
            with self.lock:
                self.open_sockets -= 1
                self.lock.notify_all()
        return ws

    async def _send_envelopes(self, ws: web.WebSocketResponse) -> None:
        assert self._outbox is not None
        while True:
            envelope = await self._outbox.get()
            with self.lock:
                self.envelopes[envelope["envelope_id"]] = {
                    "sent": time.monotonic(), "acked": None, "body": envelope}
            try:
                await ws.send_json(envelope)
            except ConnectionError:
                self._outbox.put_nowait(envelope)  # Slack sends it again on the next socket
                return

    def _ack(self, body: dict[str, Any]) -> None:
        with self.lock:
            entry = self.envelopes.get(str(body.get("envelope_id")))
            if entry is None:
                self.errors.append(f"ack of an unknown envelope: {body!r}")
            elif entry["acked"] is not None:
                self.errors.append(f"envelope {body['envelope_id']} acked twice")
            else:
                entry["acked"] = time.monotonic()
                if entry["acked"] - entry["sent"] > ACK_DEADLINE:
                    self.errors.append(f"envelope {body['envelope_id']} acked after "
                                       f"{entry['acked'] - entry['sent']:.1f} s")
            self.lock.notify_all()

    # -- the Web API -------------------------------------------------------------------
    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params: dict[str, Any] = dict(request.query)
        raw = await request.read()
        if "json" in request.content_type:
            params.update(json.loads(raw or b"{}"))
        elif raw:
            params.update({k: v[-1] for k, v in parse_qs(raw.decode()).items()})
        token = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        token = token or str(params.pop("token", ""))
        with self.lock:
            status, body, headers = self._answer(method, params, token)
            self.calls.append(Call(method, params, time.monotonic(), status, body))
            self.lock.notify_all()
        return web.json_response(body, status=status, headers=headers)

    def _answer(self, method: str, params: dict[str, Any],  # noqa: PLR0911
                token: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        wanted = APP_TOKEN if method == "apps.connections.open" else BOT_TOKEN
        if token != wanted:
            return 200, {"ok": False, "error": "invalid_auth"}, {}
        if method == "apps.connections.open":
            return 200, {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link?ticket=t"}, {}
        if method == "auth.test":
            return 200, {"ok": True, "url": "https://fake.slack.com/", "team": "Fake",
                         "user": "hermes", "team_id": TEAM, "user_id": BOT_USER,
                         "bot_id": BOT_ID, "is_enterprise_install": False}, {}
        if method == "files.info":
            found = self.files.get(str(params.get("file")))
            if found is None:
                return 200, {"ok": False, "error": "file_not_found"}, {}
            file_id = str(params["file"])
            return 200, {"ok": True, "file": {
                "id": file_id, "name": found[0], "mimetype": found[1], "size": len(found[2]),
                "url_private_download": self._file_url(file_id, found[0])}}, {}
        if method in ("assistant.threads.setStatus", "reactions.add", "reactions.remove"):
            return 200, {"ok": True}, {}
        return self._write(method, params)

    def _write(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        channel = str(params.get("channel") or "")
        found = check_write(method, params, self.messages, self.errors)
        if isinstance(found, str):
            return 200, {"ok": False, "error": found}, {}
        wait = self._limited(method, channel)
        if wait is not None:
            return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(wait)}
        now = time.monotonic()
        if found is None:  # a new message
            ts = self.next_ts()
            found = Message(channel, ts, params.get("thread_ts"), streaming=method == "chat.startStream",
                            ephemeral_to=params.get("user") if method == "chat.postEphemeral" else None)
            self.messages[(channel, ts)] = found
        found.apply(method, params, now, self.errors, self.limits.text_max)
        return 200, {"ok": True, "channel": channel, "ts": found.ts,
                     "message": {"type": "message", "user": BOT_USER, "bot_id": BOT_ID,
                                 "text": found.text, "ts": found.ts}}, {}

    def _limited(self, method: str, channel: str) -> int | None:
        kind, limit, window = self.limits.of(method)
        now = time.monotonic()
        times = [t for t in self._writes.get((kind, channel), []) if now - t < window]
        if len(times) >= limit:
            self._writes[(kind, channel)] = times
            return max(1, int(window - (now - times[0])) + 1)
        times.append(now)
        self._writes[(kind, channel)] = times
        return None

    async def _download(self, request: web.Request) -> web.Response:
        token = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        found = self.files.get(request.match_info["id"])
        with self.lock:
            self.calls.append(Call("files-pri", {"file": request.match_info["id"]},
                                   time.monotonic(), 200 if token == BOT_TOKEN else 403, {}))
            self.lock.notify_all()
        if token != BOT_TOKEN or found is None:  # Slack answers its sign-in page
            return web.Response(status=200, text="<html>sign in</html>", content_type="text/html")
        return web.Response(body=found[2], content_type=found[1])
