"""FakeTelegram: a local Bot API server (HTTP on 127.0.0.1) for the chat platform tests.

It feeds scripted updates to getUpdates (long polling: the call waits until an update
arrives or its `timeout` passes), records every call (sendMessage, editMessageText,
sendChatAction, setMyCommands, ...) and applies the Bot API's rules
(tests/fakes/telegram_rules.py: HTML and MarkdownV2 parsing, the 4,096 UTF-16 limit,
"message is not modified"), plus a per-chat flood limit: more than `flood_limit`
sends/edits within `flood_window` seconds in one chat -> 429 with
`parameters.retry_after`, and every send/edit of that chat is refused until it passes.

    with FakeTelegram() as tg:
        tg.message(chat_id=1, user_id=1, text="hello")
        tg.wait_for(lambda: tg.texts(1))
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote

from .telegram_rules import TextError, utf16_len, visible_text
from .waiting import wait_on

TOKEN = "123456:TEST-token"
BOT = {"id": 999, "is_bot": True, "first_name": "Hermes", "username": "hermes_bot",
       "can_join_groups": True, "can_read_all_group_messages": False,
       "supports_inline_queries": False}
STRING_PARAMS = {"text", "parse_mode", "action", "caption", "description"}
FLOODED = {"sendMessage", "editMessageText"}


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    time: float
    status: int
    result: Any


class FakeTelegram:
    """In-process fake Bot API. Use as a context manager or start()/stop()."""

    def __init__(self, *, token: str = TOKEN, flood_limit: int | None = None,
                 flood_window: float = 1.0, retry_after: int = 1) -> None:
        self.token = token
        self.flood_limit = flood_limit
        self.flood_window = flood_window
        self.retry_after = retry_after
        self.lock = threading.Condition()
        self.calls: list[Call] = []
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}  # (chat, id) -> message
        self._bot_messages: dict[int, dict[int, dict[str, Any]]] = {}  # chat -> id -> message
        self._updates: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._message_ids = itertools.count(1000)
        self._sent: dict[int, list[float]] = {}  # chat -> times of accepted sends/edits
        self._blocked: dict[int, float] = {}  # chat -> monotonic time the flood limit lifts
        self._forced: list[tuple[int, int]] = []  # (chat, retry_after): one 429 each
        self.reject_markup = 0  # refuse the next N texts that carry a parse_mode
        self.files: dict[str, bytes] = {}  # file_id -> content (documents users sent)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> FakeTelegram:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True,
                                        kwargs={"poll_interval": 0.02}, name="fake-telegram")
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        with self.lock:
            self.lock.notify_all()
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeTelegram:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """The Bot API base URL (the token is appended: .../bot<token>/<method>)."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/bot"

    # -- scripting ---------------------------------------------------------------------
    def message(self, chat_id: int, user_id: int, text: str, *, chat_type: str = "private",  # noqa: PLR0913
                thread_id: int | None = None, mention: bool = False,
                reply_to: int | None = None, document: tuple[str, bytes] | None = None,
                photo: list[tuple[int, int, bytes]] | None = None) -> int:
        """Queue an incoming message (`document`: a file (name, content); `photo`: the
        sizes of one photo as (width, height, JPEG bytes), smallest first, as Telegram
        sends them; with either, `text` is the caption); returns its message id."""
        if mention:
            text = f"@{BOT['username']} {text}"
        entities = []
        if mention:
            entities.append({"type": "mention", "offset": 0,
                             "length": utf16_len(f"@{BOT['username']}")})
        elif text.startswith("/"):
            entities.append({"type": "bot_command", "offset": 0,
                             "length": utf16_len(text.split()[0])})
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type != "private":
            chat["title"] = f"group {chat_id}"
        if thread_id is not None:
            chat["is_forum"] = True
        message_id = next(self._message_ids)
        message: dict[str, Any] = {
            "message_id": message_id, "date": int(time.time()), "chat": chat, "text": text,
            "from": {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"}}
        if entities:
            message["entities"] = entities
        if document is not None:
            file_id = f"file{message_id}"
            with self.lock:
                self.files[file_id] = document[1]
            message["document"] = {"file_id": file_id, "file_unique_id": f"u{file_id}",
                                   "file_name": document[0], "file_size": len(document[1])}
        if photo:
            sizes = []
            for n, (width, height, data) in enumerate(photo):
                file_id = f"photo{message_id}_{n}"
                with self.lock:
                    self.files[file_id] = data
                sizes.append({"file_id": file_id, "file_unique_id": f"u{file_id}",
                              "width": width, "height": height, "file_size": len(data)})
            message["photo"] = sizes
        if document is not None or photo:
            message["caption"] = message.pop("text")
            if "entities" in message:
                message["caption_entities"] = message.pop("entities")
        if thread_id is not None:
            message["message_thread_id"] = thread_id
            message["is_topic_message"] = True
        if reply_to is not None:
            message["reply_to_message"] = self.messages.get((chat_id, reply_to)) or {
                "message_id": reply_to, "date": 0, "chat": chat, "from": BOT, "text": "..."}
        with self.lock:
            self._updates.append({"update_id": next(self._ids), "message": message})
            self.lock.notify_all()
        return message_id

    def press(self, chat_id: int, user_id: int, message_id: int, data: str) -> None:
        """Queue a press of an inline keyboard button of the bot's message."""
        message = self.messages[(chat_id, message_id)]
        with self.lock:
            self._updates.append({"update_id": next(self._ids), "callback_query": {
                "id": f"cq{next(self._ids)}", "chat_instance": str(chat_id), "data": data,
                "from": {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"},
                "message": {k: v for k, v in message.items() if k != "parse_mode"}}})
            self.lock.notify_all()

    def keyboards(self, chat_id: int) -> list[dict[str, Any]]:
        """The bot's messages in the chat that show an inline keyboard now."""
        return [m for m in self.sent(chat_id) if m.get("reply_markup")]

    def force_429(self, chat_id: int, retry_after: int = 1) -> None:
        """The next send/edit in the chat gets a 429 naming `retry_after`."""
        with self.lock:
            self._forced.append((chat_id, retry_after))

    # -- reading -----------------------------------------------------------------------
    def recorded(self, method: str | None = None, chat_id: int | None = None) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if (method is None or c.method == method)
                    and (chat_id is None or str(c.params.get("chat_id")) == str(chat_id))]

    def texts(self, chat_id: int) -> list[str]:
        """The current text of every message the bot has in the chat, in order."""
        return [m["text"] for m in self.sent(chat_id)]

    def shown(self, chat_id: int) -> list[str]:
        """What the user sees of each of the bot's messages in the chat (markup parsed)."""
        return [visible_text(m["text"], m.get("parse_mode")) for m in self.sent(chat_id)]

    def sent(self, chat_id: int) -> list[dict[str, Any]]:
        """The bot's messages in the chat (dicts as the Bot API returns them), in order."""
        with self.lock:
            mine = self._bot_messages.get(chat_id, {})
            return [dict(mine[i]) for i in sorted(mine)]

    # -- the API -----------------------------------------------------------------------
    def dispatch(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if method == "getUpdates":
            return 200, {"ok": True, "result": self._get_updates(params)}
        with self.lock:
            status, body = self._answer(method, params)
            self.calls.append(Call(method, params, time.monotonic(), status,
                                   body.get("result", body.get("description"))))
            self.lock.notify_all()  # wakes wait_for
            return status, body

    def _get_updates(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        offset = int(params.get("offset") or 0)
        deadline = time.monotonic() + min(float(params.get("timeout") or 0), 30.0)
        with self.lock:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            while not self._updates and self._server is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.lock.wait(left)
            return list(self._updates[:100])

    def _flood(self, chat: int) -> int | None:
        """Seconds to wait when the chat is over its flood limit (and then blocked)."""
        now = time.monotonic()
        for index, (forced_chat, after) in enumerate(self._forced):
            if forced_chat == chat:
                del self._forced[index]
                self._blocked[chat] = now + after
                return after
        if self._blocked.get(chat, 0) > now:
            return max(1, math.ceil(self._blocked[chat] - now))
        recent = [t for t in self._sent.get(chat, []) if now - t < self.flood_window]
        self._sent[chat] = recent
        if self.flood_limit is not None and len(recent) >= self.flood_limit:
            self._blocked[chat] = now + self.retry_after
            return self.retry_after
        recent.append(now)
        return None

    def _get_file(self, file_id: str) -> tuple[int, dict[str, Any]]:
        if file_id not in self.files:
            return 400, {"ok": False, "error_code": 400,
                         "description": "Bad Request: invalid file_id"}
        return 200, {"ok": True, "result": {
            "file_id": file_id, "file_unique_id": f"u{file_id}",
            "file_size": len(self.files[file_id]), "file_path": f"documents/{file_id}"}}

    def _answer(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:  # noqa: PLR0911
        if method == "getMe":
            return 200, {"ok": True, "result": BOT}
        if method == "getFile":
            return self._get_file(str(params.get("file_id")))
        if method in ("sendChatAction", "setMyCommands", "deleteWebhook", "close",
                      "answerCallbackQuery"):
            return 200, {"ok": True, "result": True}
        if method not in FLOODED:
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        chat = int(params["chat_id"])
        text = str(params.get("text", ""))
        if self.reject_markup and params.get("parse_mode"):
            self.reject_markup -= 1
            return 400, {"ok": False, "error_code": 400, "description":
                         "Bad Request: can't parse entities: can't find end of the entity "
                         "starting at byte offset 0"}
        try:
            visible_text(text, params.get("parse_mode"))
        except TextError as exc:
            return 400, {"ok": False, "error_code": 400, "description": str(exc)}
        key = (chat, int(params.get("message_id") or 0))
        if method == "editMessageText":
            if key not in self.messages:
                return 400, {"ok": False, "error_code": 400,
                             "description": "Bad Request: message to edit not found"}
            old = self.messages[key]
            if old["text"] == text and old.get("parse_mode") == params.get("parse_mode"):
                return 400, {"ok": False, "error_code": 400, "description":
                             "Bad Request: message is not modified: specified new message "
                             "content and reply markup are exactly the same"}
        wait = self._flood(chat)
        if wait is not None:
            return 429, {"ok": False, "error_code": 429,
                         "description": f"Too Many Requests: retry after {wait}",
                         "parameters": {"retry_after": wait}}
        if method == "editMessageText":
            message = dict(self.messages[key], text=text, edit_date=int(time.time()),
                           parse_mode=params.get("parse_mode"))
            message.pop("reply_markup", None)  # an edit without a keyboard removes it
        else:
            message = {"message_id": next(self._message_ids), "date": int(time.time()),
                       "chat": {"id": chat, "type": "private" if chat > 0 else "supergroup"},
                       "from": BOT, "text": text, "parse_mode": params.get("parse_mode")}
            if params.get("message_thread_id") is not None:
                message["message_thread_id"] = int(params["message_thread_id"])
            if params.get("reply_markup"):
                message["reply_markup"] = params["reply_markup"]
            key = (chat, message["message_id"])
        self.messages[key] = message
        self._bot_messages.setdefault(chat, {})[key[1]] = message
        return 200, {"ok": True, "result": {k: v for k, v in message.items() if k != "parse_mode"}}

    def wait_for(self, condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
        """Poll `condition` until truthy or the deadline passes (then AssertionError)."""
        return wait_on(self.lock, condition, timeout, what)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def handle(self) -> None:
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):  # a client gone
            super().handle()

    def do_POST(self) -> None:  # noqa: N802
        fake: FakeTelegram = self.server.fake  # type: ignore[attr-defined]
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        prefix = f"/bot{fake.token}/"
        if not self.path.startswith(prefix):
            self._json(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
            return
        method = self.path[len(prefix):].split("?")[0]
        self._json(*fake.dispatch(method, _params(raw, self.headers.get("content-type", ""))))

    def do_GET(self) -> None:  # noqa: N802
        fake: FakeTelegram = self.server.fake  # type: ignore[attr-defined]
        prefix = f"/file/bot{fake.token}/documents/"
        path = unquote(self.path)  # PTB quotes the file URL's path (the token's ':')
        if not path.startswith(prefix):
            self.do_POST()
            return
        data = fake.files.get(path[len(prefix):])
        if data is None:
            self._json(404, {"ok": False, "error_code": 404, "description": "Not Found"})
            return
        self.send_response(200)
        self.send_header("content-type", "application/octet-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _params(raw: bytes, content_type: str) -> dict[str, Any]:
    if "json" in content_type:
        return json.loads(raw or b"{}")
    out: dict[str, Any] = {}
    for key, values in parse_qs(raw.decode(), keep_blank_values=True).items():
        value = values[-1]
        if key not in STRING_PARAMS:
            with contextlib.suppress(ValueError):
                value = json.loads(value)
        out[key] = value
    return out
