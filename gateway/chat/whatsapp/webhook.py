"""WhatsApp's webhook: the subscribe handshake, the signature, and what a POST carries.

- GET `?hub.mode=subscribe&hub.verify_token=T&hub.challenge=C`: C is answered only when
  T is WHATSAPP_VERIFY_TOKEN (compared in constant time); anything else is 403.
- POST: `X-Hub-Signature-256: sha256=<hex>` must be the HMAC-SHA256 of the raw body
  with WHATSAPP_APP_SECRET (compared in constant time); without it the request is
  refused 401 and nothing in it is read.
- A body's `entry[].changes[].value` for our phone number id holds `messages` (each
  with the sender `from`, its id `id` and a `type`) and `statuses` (sent, delivered,
  read, failed: logged when failed, never a message). The same message id delivered
  twice (WhatsApp retries until it gets a 2xx) is taken once (`Seen`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from gateway.chat.base import Inbound

SEEN_KEPT = 10_000


@dataclass(frozen=True)
class WhatsAppInbound(Inbound):
    wamid: str = ""  # the message's id (mark as read, typing indicator)
    press: str = ""  # a reply button's id ("approve:<ident>"), when one was pressed
    kind: str = "text"  # the message's type (image, audio, ...: not read yet)


def signed(body: bytes, header: str | None, secret: str) -> bool:
    """True when `header` is `sha256=` + the HMAC-SHA256 of `body` with `secret`."""
    if not header or not header.startswith("sha256=") or not secret:
        return False
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, header[len("sha256="):].strip().lower())


def challenge(params: dict[str, str], verify_token: str) -> str | None:
    """The subscribe handshake's answer (None: refuse)."""
    given = params.get("hub.verify_token", "")
    if params.get("hub.mode") != "subscribe" or not verify_token or \
            not hmac.compare_digest(given.encode(), verify_token.encode()):
        return None
    return params.get("hub.challenge", "")


class Seen:
    """Message ids taken lately (the newest SEEN_KEPT)."""

    def __init__(self) -> None:
        self._ids: OrderedDict[str, None] = OrderedDict()

    def first(self, wamid: str) -> bool:
        if wamid in self._ids:
            return False
        self._ids[wamid] = None
        if len(self._ids) > SEEN_KEPT:
            self._ids.popitem(last=False)
        return True


def _text(message: dict[str, Any]) -> tuple[str, str]:
    """(text, pressed button id) of one message ("" when it has none)."""
    kind = message.get("type")
    if kind == "text":
        return str((message.get("text") or {}).get("body") or ""), ""
    if kind == "interactive":
        reply = (message.get("interactive") or {}).get("button_reply") or {}
        return str(reply.get("title") or ""), str(reply.get("id") or "")
    if kind == "button":
        return str((message.get("button") or {}).get("text") or ""), ""
    return "", ""


def messages(payload: dict[str, Any], phone_number_id: str) -> tuple[list[WhatsAppInbound],
                                                                      list[dict[str, Any]]]:
    """(messages, failed statuses) of a webhook body for our number."""
    out: list[WhatsAppInbound] = []
    failed: list[dict[str, Any]] = []
    for entry in payload.get("entry") or ():
        for change in (entry or {}).get("changes") or ():
            value = (change or {}).get("value") or {}
            if str((value.get("metadata") or {}).get("phone_number_id")) != phone_number_id:
                continue
            failed += [s for s in value.get("statuses") or () if s.get("status") == "failed"]
            for message in value.get("messages") or ():
                sender, wamid = message.get("from"), message.get("id")
                if not isinstance(sender, str) or not isinstance(wamid, str):
                    continue
                text, press = _text(message)
                out.append(WhatsAppInbound("whatsapp", sender, sender, text.strip(), "private",
                                           wamid=wamid, press=press,
                                           kind=str(message.get("type") or "")))
    return out, failed
