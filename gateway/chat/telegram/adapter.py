"""Telegram on python-telegram-bot v22 (async): long polling, rate limits, rendering.

- The Bot API URL is configurable (`gateway.telegram.base_url`: a self-hosted Bot API
  server, or the tests' fake); the token comes from TELEGRAM_BOT_TOKEN.
- Long polling with `Bot.get_updates` (offset acknowledged after each batch).
- Sends and edits of a chat draw from one ChatBudget (gateway/chat/budget.py) sized to
  Telegram's published limits: about one message a second in a private chat, 20 a
  minute in a group, with a burst of BURST. A send (the final text, notices) waits for
  its token; a streamed edit is skipped when none is there.
- A 429 (`telegram.error.RetryAfter`) holds the chat's budget for the `retry_after` it
  names: every later send to that chat waits it out first (the final text, notices, the
  retry of the refused call, so the rest of a long message still arrives); streamed
  edits are skipped until it lifts.
- The answer streams by editing one message, at most once per `edit_interval` seconds
  and only when the budget has a token, starting one interval into the turn (a quicker
  answer is sent whole, in one call); the final text is sent as HTML
  (gateway/chat/text.py), split into pieces of at most 4,096 UTF-16 units, and sent as
  plain text when Telegram rejects the markup.

python-telegram-bot is imported when the adapter starts (start-up speed of the CLI:
`hermes` without a configured platform never loads it).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import warnings
from typing import TYPE_CHECKING, Any

from gateway.chat.base import Document, Hub, Inbound
from gateway.chat.budget import ChatBudget
from gateway.chat.kit.connection import Backoff
from gateway.chat.kit.pieces import send_pieces
from gateway.chat.kit.stream import EditStream
from gateway.chat.kit.writer import BudgetedWriter
from gateway.chat.telegram.facts import FACTS
from gateway.chat.text import LIMIT, split_message, to_html

if TYPE_CHECKING:
    from telegram import Bot, CallbackQuery, Message, MessageEntity
    from telegram.error import RetryAfter

    from gateway.chat.leader import Leadership

DEFAULT_BASE_URL = FACTS.base_url
RETRIES = 5
# Telegram's limits (Bot API FAQ): about one message a second in a private chat, 20 a
# minute in a group, short bursts tolerated. 10% under them: Telegram counts at its end,
# after the network's jitter, and a send exactly on the second was refused in the bench
PRIVATE_RATE = 0.9
GROUP_RATE = 18 / 60
BURST = 3
WRITES = frozenset({"send_message", "edit_message_text"})  # what the budget counts


def retry_seconds(exc: RetryAfter) -> float:
    """RetryAfter's wait in seconds (an int or a timedelta, by PTB_TIMEDELTA)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = exc.retry_after
    return float(value.total_seconds() if hasattr(value, "total_seconds") else value)


def _retry_of(exc: BaseException) -> float | None:
    """The wait a 429 names; None for any other failure (BudgetedWriter)."""
    from telegram.error import RetryAfter  # loaded: the adapter has started

    return retry_seconds(exc) if isinstance(exc, RetryAfter) else None


class TelegramAdapter:
    """The Telegram platform: one Bot, one polling task."""

    name = "telegram"

    def __init__(self, token: str, *, base_url: str | None = None, poll_timeout: int = 25,
                 edit_interval: float = 1.0, group_edit_interval: float = 3.0) -> None:
        self.token = token
        self.base_url = base_url or DEFAULT_BASE_URL
        self.poll_timeout = poll_timeout
        self.edit_interval = edit_interval
        self.group_edit_interval = group_edit_interval
        self.connected = False
        self.bot: Bot | None = None
        self.username = ""
        self.bot_id = 0
        self._poller: asyncio.Task[None] | None = None
        self.budget = ChatBudget(PRIVATE_RATE, BURST)  # private chats (positive ids)
        self.group_budget = ChatBudget(GROUP_RATE, BURST)  # groups and channels
        self.writer = BudgetedWriter(self.budget_of, _retry_of, RETRIES)
        self.leader_ttl = 30.0
        self.leadership: Leadership | None = None  # poll only while leader

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self, hub: Hub) -> None:
        from telegram import Bot  # start-up speed: see the module docstring
        from telegram.request import HTTPXRequest

        base = self.base_url.rstrip("/")
        files = base[:-len("/bot")] + "/file/bot" if base.endswith("/bot") else base + "/file/bot"
        self.bot = Bot(self.token, base_url=base + "{token}", base_file_url=files + "{token}",
                       request=HTTPXRequest(connection_pool_size=64),
                       get_updates_request=HTTPXRequest(read_timeout=self.poll_timeout + 10))
        await self.bot.initialize()  # getMe: a wrong token fails here, with Telegram's words
        self.username = self.bot.username or ""
        self.bot_id = self.bot.id
        self.connected = True
        self._poller = asyncio.create_task(self._poll(self.bot, hub))

    async def stop(self) -> None:
        self.connected = False
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._poller
        if self.leadership is not None:
            await self.leadership.release()
        if self.bot is not None:
            with contextlib.suppress(Exception):
                await self.bot.shutdown()

    @property
    def started(self) -> Bot:
        """The Bot (`start` made it; RuntimeError before)."""
        if self.bot is None:
            raise RuntimeError("the Telegram adapter has not started")
        return self.bot

    async def _poll(self, bot: Bot, hub: Hub) -> None:
        from telegram.error import NetworkError, RetryAfter, TelegramError

        offset: int | None = None
        backoff = Backoff()
        while True:
            timeout = self.poll_timeout
            if self.leadership is not None:  # several workers: only the leader polls
                if not await self.leadership.hold():
                    offset = None  # the leader confirms what it reads
                    await asyncio.sleep(self.leadership.retry_s)
                    continue
                timeout = min(timeout, self.leadership.poll_cap)
            try:
                updates = await bot.get_updates(
                    offset=offset, timeout=timeout,
                    allowed_updates=["message", "callback_query"],
                    read_timeout=self.poll_timeout + 10)
                backoff.reset()
                self.connected = True
            except RetryAfter as exc:
                await asyncio.sleep(retry_seconds(exc))
                continue
            except (NetworkError, TelegramError) as exc:  # TimedOut, Conflict, ...: back off
                if self.connected and not isinstance(exc, NetworkError):
                    sys.stderr.write(f"hermes: warning: telegram: {exc}; retrying\n")
                self.connected = False
                await backoff.wait()
                continue
            for update in updates:
                offset = update.update_id + 1
                if update.callback_query is not None:
                    await self._pressed(hub, update.callback_query)
                    continue
                msg = self.inbound(update.message) if update.message else None
                if msg is None:
                    continue
                try:
                    await hub.handle(self, msg)
                except TelegramError as exc:  # a refusal or notice that could not be sent
                    sys.stderr.write(f"hermes: warning: telegram chat {msg.chat_id}: {exc}\n")

    async def _pressed(self, hub: Hub, query: CallbackQuery) -> None:
        from telegram.error import TelegramError

        answer = await hub.press(self.name, str(query.from_user.id), query.data or "")
        with contextlib.suppress(TelegramError):
            await self.call("answer_callback_query", callback_query_id=query.id, text=answer)

    # -- incoming ----------------------------------------------------------------------
    def inbound(self, message: Message) -> Inbound | None:
        """The platform-neutral message, with the bot's @mention stripped; None for
        messages without text or sender."""
        text = message.text or message.caption or ""
        docs: tuple[Document, ...] = ()
        if message.document is not None:
            doc = message.document
            docs = (Document(doc.file_id, doc.file_name or "document", doc.file_size),)
        photos: tuple[Document, ...] = ()
        if message.photo:  # the sizes Telegram made of one photo, smallest first: the largest
            size = message.photo[-1]
            photos = (Document(size.file_id, "telegram photo", size.file_size),)
        if not (text or docs or photos) or message.from_user is None:
            return None
        mention = f"@{self.username}" if self.username else ""
        addressed = message.chat.type == "private"
        for entity in message.entities or ():
            addressed = addressed or self._names_bot(entity, message.parse_entity(entity))
        reply = message.reply_to_message
        if reply is not None and reply.from_user is not None and reply.from_user.id == self.bot_id \
                and not (message.is_topic_message and reply.message_id == message.message_thread_id):
            addressed = True
        if mention:
            text = _strip_mention(text, mention)
        thread = message.message_thread_id if message.is_topic_message else None
        return Inbound("telegram", str(message.chat.id), str(message.from_user.id), text,
                       message.chat.type, thread, addressed, message.message_id, docs, photos)

    def _names_bot(self, entity: MessageEntity, part: str) -> bool:
        if entity.type == "text_mention":
            return entity.user is not None and entity.user.id == self.bot_id
        mention = f"@{self.username}".lower()
        return entity.type in ("mention", "bot_command") and bool(self.username) and \
            part.lower().endswith(mention)

    # -- outgoing ----------------------------------------------------------------------
    @property
    def rate_limited(self) -> int:
        """429s met (for status and tests)."""
        return self.budget.holds + self.group_budget.holds

    def budget_of(self, chat: object) -> ChatBudget:
        """The budget of a chat: groups and channels have negative ids."""
        return self.group_budget if int(str(chat)) < 0 else self.budget

    async def call(self, method: str, **kwargs: Any) -> Any:
        """`bot.<method>(**kwargs)`; a send or edit first waits for its chat's budget,
        and a 429 holds the chat for its retry_after and is retried (RETRIES times:
        gateway/chat/kit/writer.py)."""
        chat = kwargs.get("chat_id")
        counted = str(chat) if chat is not None and method in WRITES else None
        return await self.writer.write(counted, lambda: getattr(self.bot, method)(**kwargs))

    def limited(self, chat: object, exc: RetryAfter) -> None:
        """Telegram said 429 for `chat`: nothing is sent there until retry_after passed."""
        self.budget_of(chat).hold(str(chat), retry_seconds(exc))

    async def send_text(self, msg: Inbound, text: str, *, edit: int | None = None,
                        html: bool = True) -> int | None:
        """Send (or edit into message `edit`) one piece: HTML, else plain when Telegram
        cannot parse the markup. Returns the message id."""
        from telegram.error import BadRequest

        where: dict[str, Any] = {"chat_id": int(msg.chat_id)}
        if edit is None and msg.thread_id is not None:
            where["message_thread_id"] = msg.thread_id
        method = "send_message" if edit is None else "edit_message_text"
        if edit is not None:
            where["message_id"] = edit
        modes = [to_html(text), None] if html else [None]
        for body in modes:
            try:
                if body is None:
                    sent = await self.call(method, text=text, **where)
                else:
                    sent = await self.call(method, text=body, parse_mode="HTML", **where)
                return getattr(sent, "message_id", edit)
            except BadRequest as exc:
                reason = str(exc).lower()
                if "not modified" in reason:
                    return edit
                if body is None or ("parse" not in reason and "empty" not in reason):
                    raise  # (markup that shows nothing, e.g. an empty code block: plain)
        return edit

    def reply(self, msg: Inbound) -> TelegramReply:
        interval = self.group_edit_interval if msg.group else self.edit_interval
        return TelegramReply(self, msg, interval)

    async def notify(self, msg: Inbound, text: str) -> None:
        for piece in split_message(text):
            await self.send_text(msg, piece, html=False)

    async def deliver(self, chat: str, text: str, thread: str | None = None) -> None:
        """A scheduled job's answer (or a kept reply, in its forum topic `thread`) to
        `chat`, plain text (gateway/chat/base.Delivering)."""
        from telegram.error import TelegramError

        where: dict[str, Any] = {"message_thread_id": int(thread)} if thread else {}
        await send_pieces(split_message(text),
                          lambda piece: self.call("send_message", chat_id=int(chat), text=piece, **where),
                          TelegramError, lambda exc: f"telegram: {exc}")

    async def ask(self, msg: Inbound, text: str, ident: str) -> int:
        """A question with two buttons (an approval); returns its message id."""
        from telegram import InlineKeyboardButton, InlineKeyboardMarkup

        keyboard = InlineKeyboardMarkup([[
            InlineKeyboardButton("Approve once", callback_data=f"approve:{ident}"),
            InlineKeyboardButton("Refuse", callback_data=f"deny:{ident}")]])
        kwargs: dict[str, Any] = {}
        if msg.thread_id is not None:
            kwargs["message_thread_id"] = msg.thread_id
        *leading, last = split_message(text)  # the question whole, the buttons on its end
        for piece in leading:
            await self.call("send_message", chat_id=int(msg.chat_id), text=piece, **kwargs)
        sent: Message = await self.call("send_message", chat_id=int(msg.chat_id), text=last,
                                        reply_markup=keyboard, **kwargs)
        return sent.message_id

    async def settle(self, msg: Inbound, message_id: int, text: str) -> None:
        """The question answered: its text replaced (the buttons go)."""
        await self.call("edit_message_text", chat_id=int(msg.chat_id), message_id=message_id,
                        text=text)

    async def download(self, doc: Document) -> bytes:
        file = await self.call("get_file", file_id=doc.file_id)
        return bytes(await file.download_as_bytearray())

    async def register_commands(self, commands: list[tuple[str, str]]) -> None:
        from telegram import BotCommand

        await self.call("set_my_commands",
                        commands=[BotCommand(name, desc[:256]) for name, desc in commands])


class TelegramReply:
    """One answer: the typing action, a streamed message edited in place (plain text:
    half a markup construct would be rejected), the final text as HTML
    (gateway/chat/kit/stream.py)."""

    def __init__(self, adapter: TelegramAdapter, msg: Inbound, interval: float) -> None:
        from telegram.error import TelegramError  # loaded: the adapter has started

        self.adapter = adapter
        self.msg = msg
        self.stream = EditStream(
            adapter.budget_of(msg.chat_id), msg.chat_id, interval, LIMIT, split_message,
            post=self._post, edit=self._edit,
            final_edit=lambda handle, piece: adapter.send_text(msg, piece, edit=handle),
            final_send=lambda piece: adapter.send_text(msg, piece),
            errors=(TelegramError,), on_error=self._lost, skip_unchanged=False, paced=False)

    async def typing(self) -> None:
        kwargs: dict[str, Any] = {"chat_id": int(self.msg.chat_id), "action": "typing"}
        if self.msg.thread_id is not None:
            kwargs["message_thread_id"] = self.msg.thread_id
        await self.adapter.started.send_chat_action(**kwargs)

    async def _post(self, text: str) -> int:
        kwargs: dict[str, Any] = {}
        if self.msg.thread_id is not None:
            kwargs["message_thread_id"] = self.msg.thread_id
        sent = await self.adapter.started.send_message(chat_id=int(self.msg.chat_id), text=text,
                                                       **kwargs)
        return int(sent.message_id)

    async def _edit(self, message_id: int, text: str) -> None:
        await self.adapter.started.edit_message_text(chat_id=int(self.msg.chat_id),
                                                     message_id=message_id, text=text)

    def _lost(self, exc: BaseException) -> None:
        from telegram.error import RetryAfter  # loaded: the adapter has started

        if isinstance(exc, RetryAfter):  # the next edit waits until the limit lifts
            self.adapter.limited(self.msg.chat_id, exc)

    async def update(self, text: str) -> None:
        await self.stream.update(text)

    async def finish(self, text: str) -> None:
        await self.stream.finish(text)


def _strip_mention(text: str, mention: str) -> str:
    """`/usage@bot` -> `/usage`; `@bot hello` -> `hello`."""
    lowered = text.lower()
    at = lowered.find(mention.lower())
    if at < 0:
        return text
    return (text[:at] + text[at + len(mention):]).strip()
