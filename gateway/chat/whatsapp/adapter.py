"""The WhatsApp platform: the Cloud API's webhook in, `/{phone_number_id}/messages` out.

- `start` checks the access token (a GET of the phone number's id). The webhook route
  (`routes`, webhook.py) is mounted on the gateway's own HTTP app by
  gateway/chat/boot.attach; with `hermes gateway --no-api` the adapter serves that one
  route itself on `gateway.whatsapp.listen` (default 127.0.0.1:8080, the API's address).
- A POST is answered 200 at once (WhatsApp retries until it gets a 2xx) and handled
  after; each sender is a session; a message id seen before - here, before a restart,
  or by another worker on the same store (memory/inbound.py) - is dropped.
- Answers are sent whole when the turn ends (WhatsApp has no edits): split at 4,096
  characters by the shared splitter, in order. While the turn runs the message is
  marked read with the typing indicator (it lasts 25 s; renewed every 20 s).
- Writes to a user draw from one ChatBudget: WhatsApp's pair rate (a burst, then one
  every 6 s); error 130429 (throughput) and 131056 (pair rate) hold the chat and the
  message is sent again.
- Approvals: an interactive message with two reply buttons; only the asker's press
  counts (the shared rule, gateway/chat/approvals.py). WhatsApp cannot edit: the result is a new short message.
- A scheduled delivery to a user who has not written within 24 hours fails with error
  131047: Undelivered says so (template messages are out of scope).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
import time
from typing import TYPE_CHECKING, Any

import httpx
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from gateway.chat.budget import ChatBudget
from gateway.chat.kit.pieces import send_pieces
from gateway.chat.text import split_message
from gateway.chat.whatsapp import facts
from gateway.chat.whatsapp.webhook import Seen, WhatsAppInbound, challenge, messages, signed

if TYPE_CHECKING:
    from gateway.chat.base import Document, Hub, Inbound

RETRIES = 5
TYPING_RENEW = 20.0  # s: the indicator lasts 25 s
HOLD = {facts.ERROR_THROUGHPUT: 1.0, facts.ERROR_PAIR_RATE: 6.0}
TEXT_ONLY = "I read text messages only for now."


class WhatsAppRefused(Exception):
    """The Graph API did not accept the access token or phone number id."""


class WhatsAppError(Exception):
    """A send the Graph API refused: its code and message."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"error {code}: {message}")
        self.code = code


class WhatsAppReply:
    """One answer: the typing indicator while the turn runs, the text whole at the end."""

    def __init__(self, adapter: WhatsAppAdapter, msg: WhatsAppInbound) -> None:
        self.adapter = adapter
        self.msg = msg
        self.typed = 0.0

    async def typing(self) -> None:
        if time.monotonic() - self.typed >= TYPING_RENEW:
            self.typed = time.monotonic()
            await self.adapter.typing(self.msg)

    async def update(self, text: str) -> None:
        return None  # WhatsApp has no edits: the answer is sent whole by finish

    async def finish(self, text: str) -> None:
        await self.adapter.deliver(self.msg.chat_id, text)  # refused: Undelivered with the rest


class WhatsAppAdapter:
    """The WhatsApp platform (see the module docstring)."""

    name = "whatsapp"

    def __init__(self, token: str, app_secret: str, verify_token: str, *,  # noqa: PLR0913
                 phone_number_id: str, base_url: str = facts.BASE_URL,
                 listen: tuple[str, int] = ("127.0.0.1", 8080)) -> None:
        self.token = token
        self.app_secret = app_secret
        self.verify_token = verify_token
        self.phone_number_id = phone_number_id
        self.base_url = base_url.rstrip("/")
        self.listen = listen
        self.connected = False
        self.mounted = False  # the webhook route is on the gateway's app (boot.attach)
        self.budget = ChatBudget(facts.RATE_PER_S, facts.BURST)
        self.rate_limited = 0
        self.hub: Hub | None = None
        self.http: httpx.AsyncClient | None = None
        self.routes = [Route(facts.WEBHOOK_PATH, self.webhook, methods=["GET", "POST"])]
        self._seen = Seen()
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: Any = None  # uvicorn.Server with --no-api
        self._serving: asyncio.Task[None] | None = None
        self._handles = itertools.count(1)

    @property
    def url(self) -> str:
        return f"{self.base_url}/{facts.API_VERSION}/{self.phone_number_id}"

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self, hub: Hub) -> None:
        self.hub = hub
        self.http = httpx.AsyncClient(timeout=30, headers={
            "Authorization": f"Bearer {self.token}"})
        found = await self.http.get(self.url, params={"fields": "display_phone_number"})
        if found.status_code != 200:
            code, message = _error(found)
            await self.http.aclose()
            raise WhatsAppRefused(f"the Graph API refused WHATSAPP_ACCESS_TOKEN or "
                                  f"phone_number_id {self.phone_number_id}: {message} "
                                  f"(error {code})")
        if not self.mounted:
            await self._serve()
        self.connected = True

    async def _serve(self) -> None:
        """--no-api: the webhook route alone on `listen` (uvicorn, like the API)."""
        import uvicorn  # noqa: PLC0415 - only with --no-api
        from starlette.applications import Starlette  # noqa: PLC0415 - only with --no-api

        host, port = self.listen
        self._server = uvicorn.Server(uvicorn.Config(Starlette(routes=self.routes), host=host,
                                                     port=port, log_level="warning"))
        self._serving = asyncio.create_task(self._server.serve())
        sys.stdout.write(f"hermes gateway: WhatsApp webhook on http://{host}:{port}"
                         f"{facts.WEBHOOK_PATH}\n")

    async def stop(self) -> None:
        self.connected = False
        if self._server is not None and self._serving is not None:
            self._server.should_exit = True
            with contextlib.suppress(Exception):
                await self._serving
        for task in list(self._tasks):
            task.cancel()
        if self.http is not None:
            await self.http.aclose()

    # -- incoming ----------------------------------------------------------------------
    async def webhook(self, request: Request) -> Response:
        if request.method == "GET":
            answer = challenge(dict(request.query_params), self.verify_token)
            return PlainTextResponse("forbidden", 403) if answer is None \
                else PlainTextResponse(answer)
        raw = bytearray()
        async for chunk in request.stream():  # read no more than a webhook can be
            raw += chunk
            if len(raw) > facts.WEBHOOK_MAX_BYTES:
                return PlainTextResponse("too large", 413)
        body = bytes(raw)
        if not signed(body, request.headers.get("x-hub-signature-256"), self.app_secret):
            return PlainTextResponse("invalid signature", 401)
        try:
            payload = json.loads(body)
        except ValueError:
            return PlainTextResponse("not JSON", 400)
        task = asyncio.create_task(self._handle(payload if isinstance(payload, dict) else {}))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return PlainTextResponse("ok")  # at once: WhatsApp retries what is not acknowledged

    async def _handle(self, payload: dict[str, Any]) -> None:
        found, failed = messages(payload, self.phone_number_id)
        for status in failed:
            sys.stderr.write(f"hermes: warning: whatsapp: a message to {status.get('recipient_id')} "
                             f"failed: {json.dumps(status.get('errors') or [])[:300]}\n")
        for msg in found:
            if self.hub is None or not self._seen.first(msg.wamid) or \
                    not await self.hub.first_delivery(self.name, msg.wamid):
                continue  # a retried webhook, here or on another worker: answered once
            try:
                if msg.press:
                    await self._pressed(msg)
                elif msg.kind not in ("text", "interactive", "button") and \
                        msg.user_id in self._allowed():
                    await self.notify(msg, TEXT_ONLY)
                else:
                    await self.hub.handle(self, msg)
            except (WhatsAppError, httpx.HTTPError) as exc:
                sys.stderr.write(f"hermes: warning: whatsapp {msg.chat_id}: {exc}\n")

    def _allowed(self) -> frozenset[str]:
        policies = getattr(self.hub, "policies", {})
        policy = policies.get(self.name)
        return policy.allowed_users if policy is not None else frozenset()

    async def _pressed(self, msg: WhatsAppInbound) -> None:
        """A reply button: the shared rule (gateway/chat/approvals.py: only the asker
        answers) decides; the presser is told the outcome."""
        assert self.hub is not None
        await self.notify(msg, await self.hub.press(self.name, msg.user_id, msg.press))

    # -- outgoing ----------------------------------------------------------------------
    async def post(self, chat: str, body: dict[str, Any], *, budget: bool = True) -> str:
        """POST a message to `chat` through its budget; its wamid. A rate limit holds the
        chat and the message is sent again; other refusals are WhatsAppError."""
        assert self.http is not None
        payload = {"messaging_product": "whatsapp", **body}
        for attempt in range(RETRIES + 1):
            if budget:
                await self.budget.send(chat)
            sent = await self.http.post(f"{self.url}/messages", json=payload)
            if sent.status_code == 200:
                found = sent.json().get("messages") or [{}]
                return str(found[0].get("id") or "")
            code, message = _error(sent)
            if (code in HOLD or sent.status_code == 429) and attempt < RETRIES:
                self.rate_limited += 1
                self.budget.hold(chat, HOLD.get(code, 1.0))
                continue
            raise WhatsAppError(code, message)
        raise AssertionError("unreachable")

    async def send_text(self, chat: str, text: str) -> None:
        """`text` to `chat` in pieces of at most 4,096 characters, in order."""
        for piece in split_message(text, facts.TEXT_MAX) or ["(no answer)"]:
            await self.send_one(chat, piece)

    async def send_one(self, chat: str, piece: str) -> None:
        await self.post(chat, {"recipient_type": "individual", "to": chat, "type": "text",
                               "text": {"preview_url": False, "body": piece}})

    async def typing(self, msg: WhatsAppInbound) -> None:
        """Mark the message read and show the typing indicator (not a message: no budget)."""
        with contextlib.suppress(WhatsAppError, httpx.HTTPError):
            await self.post(msg.chat_id, {"status": "read", "message_id": msg.wamid,
                                          "typing_indicator": {"type": "text"}}, budget=False)

    def reply(self, msg: Inbound) -> WhatsAppReply:
        assert isinstance(msg, WhatsAppInbound)
        return WhatsAppReply(self, msg)

    async def notify(self, msg: Inbound, text: str) -> None:
        await self.send_text(msg.chat_id, text)

    async def deliver(self, chat: str, text: str, thread: str | None = None) -> None:
        """A scheduled job's answer (or a reply kept by the ledger) to `chat`
        (gateway/chat/base.Delivering; WhatsApp has no threads)."""
        def said(exc: BaseException) -> str:
            if isinstance(exc, WhatsAppError) and exc.code == facts.ERROR_WINDOW:
                return (f"whatsapp {chat}: outside WhatsApp's 24-hour customer-service window "
                        "(error 131047): the user has to write first (template messages are "
                        "not supported)")
            return f"whatsapp {chat}: {exc}"

        await send_pieces(split_message(text, facts.TEXT_MAX) or ["(no answer)"],
                          lambda piece: self.send_one(chat, piece), (WhatsAppError, httpx.HTTPError), said)

    async def ask(self, msg: Inbound, text: str, ident: str) -> int:
        """An approval: the question with "Approve once" / "Refuse" reply buttons (a
        question longer than a button message's body: its head first, as text)."""
        *head, body = split_message(text, facts.BUTTON_BODY_MAX) or [text]
        for piece in head:
            await self.send_one(msg.chat_id, piece)
        buttons = [("approve", "Approve once"), ("deny", "Refuse")][:facts.BUTTONS_MAX]
        await self.post(msg.chat_id, {"recipient_type": "individual", "to": msg.chat_id,
                                      "type": "interactive", "interactive": {
                                          "type": "button", "body": {"text": body},
                                          "action": {"buttons": [
                                              {"type": "reply", "reply": {
                                                  "id": f"{verb}:{ident}",
                                                  "title": title[:facts.BUTTON_TITLE_MAX]}}
                                              for verb, title in buttons]}}})
        return next(self._handles)

    async def settle(self, msg: Inbound, message_id: int, text: str) -> None:
        await self.send_text(msg.chat_id, text)  # no edits on WhatsApp: a new message

    async def register_commands(self, commands: list[tuple[str, str]]) -> None:
        return None  # WhatsApp has no command menu: /help lists them

    async def download(self, doc: Document) -> bytes:
        raise WhatsAppError(0, "files are not taken on WhatsApp yet")


def _error(response: httpx.Response) -> tuple[int, str]:
    """(code, message) of a Graph API error answer."""
    try:
        error = response.json().get("error") or {}
    except ValueError:
        return response.status_code, response.text[:200]
    return int(error.get("code") or response.status_code), str(error.get("message") or "")
