"""FakeWhatsApp: a local Graph API (the Cloud API's messages endpoint) on 127.0.0.1, and a
webhook sender that signs its bodies as Meta does.

The API (`{base_url}/vNN.N/{phone_number_id}...`, `Authorization: Bearer` token):
- GET `/{phone_number_id}`: the number (a wrong token: 401, error code 190);
- POST `/{phone_number_id}/messages`: text (body at most 4,096 characters),
  interactive reply buttons (at most 3, titles at most 20 characters, unique ids, body
  at most 1,024), and `status: read` with a `typing_indicator` (a message id it gave).
The published limits and errors it keeps (`{"error": {"code": ...}}`):
- 131047: the user has not written within the 24-hour customer-service window;
- 130429 (HTTP 429): more than `mps` messages a second from the number;
- 131056: the pair rate - a burst of `pair_burst` to one user, then one every
  `1/pair_rate` s;
- 100: an invalid parameter (a body too long, too many buttons, a title too long).
The webhook sender POSTs to the gateway's `/whatsapp/webhook` with
`X-Hub-Signature-256: sha256=HMAC-SHA256(app secret, raw body)` (httpx, the real client).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from aiohttp import web

from .aio_server import ThreadedAioServer
from .waiting import wait_on

TOKEN = "EAAG-fake-whatsapp-token"
APP_SECRET = "fake-app-secret"
VERIFY_TOKEN = "fake-verify-token"
PHONE_ID = "106540352242922"
WINDOW = 24 * 3600


@dataclass
class Limits:
    mps: float = 80.0  # messages a second from the number
    pair_rate: float = 1 / 6
    pair_burst: int = 45


@dataclass
class Posted:
    """One POST to /messages (accepted or not)."""

    to: str
    body: dict[str, Any]
    status: int
    code: int = 0
    time: float = field(default_factory=time.monotonic)

    @property
    def text(self) -> str:
        return str((self.body.get("text") or {}).get("body") or "")


class FakeWhatsApp(ThreadedAioServer):
    """In-process fake Graph API. Use as a context manager or start()/stop()."""

    def __init__(self, limits: Limits | None = None) -> None:
        super().__init__()
        self.limits = limits or Limits()
        self.lock = threading.Condition()
        self.posted: list[Posted] = []
        self.last_seen: dict[str, float] = {}  # user -> when they last wrote (time.time)
        self.webhook = ""  # the gateway's webhook URL
        self._incoming: dict[str, str] = {}  # message id sent to the gateway -> its sender
        self._sent_times: list[float] = []
        self._pairs: dict[str, tuple[float, float]] = {}
        self._ids = itertools.count(1)
        self.outage_after: int | None = None  # accept this many more messages, then 131000s

    # -- lifecycle (tests/fakes/aio_server.py) -----------------------------------------
    name = "fake-whatsapp"

    def _app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/{version}/{phone}", self._number)
        app.router.add_post("/{version}/{phone}/messages", self._messages)
        return app

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- the webhook sender (the test's thread) ----------------------------------------
    def deliver(self, value: dict[str, Any], *, secret: str = APP_SECRET, sign: bool = True,
                raw: bytes | None = None) -> httpx.Response:
        """POST one change (`value`) to the gateway's webhook, signed with `secret`."""
        value = {"messaging_product": "whatsapp",
                 "metadata": {"display_phone_number": "15550009999", "phone_number_id": PHONE_ID},
                 **value}
        body = raw if raw is not None else json.dumps({"object": "whatsapp_business_account",
                                                       "entry": [{"id": "WABA1", "changes": [
                                                           {"field": "messages", "value": value}]}]}).encode()
        headers = {"Content-Type": "application/json"}
        if sign:
            digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
            headers["X-Hub-Signature-256"] = f"sha256={digest}"
        return httpx.post(self.webhook, content=body, headers=headers, timeout=10)

    def message(self, user: str, text: str, *, wamid: str | None = None,
                kind: str = "text", press: tuple[str, str] | None = None) -> tuple[str, httpx.Response]:
        """`user` writes `text` (or presses the reply button `press`: (id, title)); the
        message id and the webhook's answer."""
        wamid = wamid or f"wamid.IN{next(self._ids)}"
        message: dict[str, Any] = {"from": user, "id": wamid, "timestamp": str(int(time.time())),
                                   "type": kind}
        if press is not None:
            message.update(type="interactive", interactive={
                "type": "button_reply", "button_reply": {"id": press[0], "title": press[1]}})
        elif kind == "text":
            message["text"] = {"body": text}
        with self.lock:
            self.last_seen[user] = time.time()
            self._incoming[wamid] = user
        return wamid, self.deliver({"contacts": [{"profile": {"name": "User"}, "wa_id": user}],
                                    "messages": [message]})

    def status(self, user: str, wamid: str, status: str) -> httpx.Response:
        return self.deliver({"statuses": [{"id": wamid, "status": status, "recipient_id": user,
                                           "timestamp": str(int(time.time()))}]})

    def wait_for(self, condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
        return wait_on(self.lock, condition, timeout, what)

    def sent(self, user: str, kind: str = "text") -> list[Posted]:
        """The accepted messages to `user` of type `kind` ("read": read receipts)."""
        with self.lock:
            return [p for p in self.posted if p.to == user and p.status == 200 and
                    (p.body.get("type") == kind or (kind == "read" and "status" in p.body))]

    def texts(self, user: str) -> list[str]:
        return [p.text for p in self.sent(user)]

    # -- the API -----------------------------------------------------------------------
    @staticmethod
    def _error(status: int, code: int, message: str) -> web.Response:
        return web.json_response({"error": {"message": message, "type": "OAuthException",
                                            "code": code, "fbtrace_id": "AFakeTrace"}},
                                 status=status)

    def _checked(self, request: web.Request) -> web.Response | None:
        if not re.fullmatch(r"v\d+\.\d", request.match_info["version"]):
            return self._error(400, 2500, "Unknown path components")
        if request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._error(401, 190, "Invalid OAuth access token - Cannot parse access token")
        if request.match_info["phone"] != PHONE_ID:
            return self._error(400, 100, "Unsupported post request. Object does not exist")
        return None

    async def _number(self, request: web.Request) -> web.Response:
        return self._checked(request) or web.json_response(
            {"display_phone_number": "15550009999", "id": PHONE_ID})

    def _invalid(self, body: dict[str, Any]) -> str:
        if body.get("messaging_product") != "whatsapp":
            return "messaging_product must be whatsapp"
        if body.get("type") == "text":
            text = str((body.get("text") or {}).get("body") or "")
            if not text or len(text) > 4096:
                return "Param text['body'] must be between 1 and 4096 characters long"
        elif body.get("type") == "interactive":
            inter = body.get("interactive") or {}
            buttons = (inter.get("action") or {}).get("buttons") or []
            titles = [str(((b.get("reply") or {}).get("title")) or "") for b in buttons]
            ids = [str(((b.get("reply") or {}).get("id")) or "") for b in buttons]
            if not 1 <= len(buttons) <= 3 or any(not 1 <= len(t) <= 20 for t in titles) or \
                    len(set(ids)) != len(ids) or len(str((inter.get("body") or {}).get("text") or "")) > 1024:
                return "Invalid parameter: buttons (1-3, titles 1-20 characters, unique ids)"
        else:
            return f"Unsupported message type {body.get('type')!r}"
        return ""

    def _limited(self, to: str, now: float) -> tuple[int, int, str] | None:
        self._sent_times = [t for t in self._sent_times if now - t < 1.0]
        if len(self._sent_times) >= self.limits.mps:
            return 429, 130429, "Rate limit hit: Cloud API message throughput has been reached"
        tokens, stamp = self._pairs.get(to, (float(self.limits.pair_burst), now))
        tokens = min(float(self.limits.pair_burst), tokens + (now - stamp) * self.limits.pair_rate)
        if tokens < 1:
            self._pairs[to] = (tokens, now)
            return 400, 131056, "(Business Account, Consumer Account) pair rate limit hit"
        self._pairs[to] = (tokens - 1, now)
        self._sent_times.append(now)
        return None

    async def _messages(self, request: web.Request) -> web.Response:
        refused = self._checked(request)
        if refused is not None:
            return refused
        body = await request.json()
        to = str(body.get("to") or "")
        with self.lock:
            try:
                if body.get("status") == "read":
                    sender = self._incoming.get(str(body.get("message_id")))
                    ok = sender is not None
                    self.posted.append(Posted(sender or "", body, 200 if ok else 400))
                    return web.json_response({"success": True}) if ok else \
                        self._error(400, 100, "Invalid parameter: message_id")
                problem = self._invalid(body)
                if problem:
                    self.posted.append(Posted(to, body, 400, 100))
                    return self._error(400, 100, problem)
                if time.time() - self.last_seen.get(to, 0.0) > WINDOW:
                    self.posted.append(Posted(to, body, 400, 131047))
                    return self._error(400, 131047, "Re-engagement message: more than 24 hours "
                                                    "have passed since the recipient last replied")
                if self.outage_after is not None:  # Meta's "Something went wrong", until cleared
                    if self.outage_after <= 0:
                        self.posted.append(Posted(to, body, 500, 131000))
                        return self._error(500, 131000, "Something went wrong")
                    self.outage_after -= 1
                limited = self._limited(to, time.monotonic())
                if limited is not None:
                    self.posted.append(Posted(to, body, limited[0], limited[1]))
                    return self._error(*limited)
                wamid = f"wamid.OUT{next(self._ids)}"
                self.posted.append(Posted(to, body, 200))
                return web.json_response({"messaging_product": "whatsapp",
                                          "contacts": [{"input": to, "wa_id": to}],
                                          "messages": [{"id": wamid}]})
            finally:
                self.lock.notify_all()
