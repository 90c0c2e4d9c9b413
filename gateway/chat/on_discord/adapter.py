"""Discord on discord.py: the gateway websocket, threads, streamed replies, approvals.

- The token comes from DISCORD_BOT_TOKEN; REST goes to `gateway.discord.base_url` and
  the websocket to the URL `GET {base_url}/gateway/bot` names (client.py). Intents:
  guilds, guild and DM messages, Message Content (privileged: enable it in the portal).
- A DM is a session. In a server the bot answers when mentioned, in a thread it starts
  from that message (the thread is the session; follow-ups there need no mention); where
  it may not start a thread (or the user is not allowed: the refusal), it replies to the
  message in the channel. It never answers itself or another bot.
- Replies keep Markdown (Discord renders it) and are split at 2,000 characters with
  code fences closed and reopened (gateway/chat/text.py). The answer streams by editing
  one message at most once per `edit_interval` seconds; sends and edits of a channel
  draw from one ChatBudget (at most 5 in any 5 s, Discord's per-channel limit): an
  interim edit is skipped under pressure, a send waits. A 429 holds the channel for its retry_after
  (client.py) while discord.py waits it out and sends the refused call again.
- Approvals are two buttons (components); who may press them is gateway/chat/approvals.py's rule.
- The chat commands are registered as slash commands (one optional `text` option); a
  slash command is acknowledged to its user alone and runs as that text (`/usage`),
  exactly like typing it.
- With several gateway workers only the holder of the lease `discord:<token hash>`
  (gateway/chat/leader.py) keeps the websocket open; the others stand by.

discord.py is imported when the platform is configured (gateway/chat/boot.py), never by
a `hermes` that has no Discord bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sys
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import discord
from discord.http import Route

from gateway.chat.base import Document, Hub, Inbound, Undelivered
from gateway.chat.budget import ChatBudget
from gateway.chat.kit.connection import Backoff
from gateway.chat.kit.pieces import send_pieces
from gateway.chat.kit.stream import EditStream
from gateway.chat.on_discord.client import DEFAULT_BASE_URL, HermesClient, intents
from gateway.chat.text import split_message

if TYPE_CHECKING:
    from gateway.chat.leader import Leadership

LIMIT = 2000  # characters in one message
# Discord: 5 messages per 5 s per channel, counted in fixed windows, and edits in a
# bucket of their own: one bucket for both that never holds more than 5 in any 5 s
# (burst + 5 s x rate) keeps both under their limits with nothing queued behind them
RATE, BURST = 0.8, 1
KEEP_FILES = 256  # attachments remembered for download


class DiscordAdapter:
    """The Discord platform: one client, its websocket held while this worker leads."""

    name = "discord"

    def __init__(self, token: str, *, base_url: str | None = None, edit_interval: float = 1.0,
                 allowed_users: frozenset[str] = frozenset()) -> None:
        self.token = token
        self.base_url = base_url or DEFAULT_BASE_URL
        self.edit_interval = edit_interval
        self.allowed_users = allowed_users  # who gets a thread (others hear the refusal)
        self.connected = False
        self.client: HermesClient | None = None
        self.bot_id = 0
        self.budget = ChatBudget(RATE, BURST)
        self.leader_ttl = 30.0
        self.leadership: Leadership | None = None
        self._hub: Hub | None = None
        self._runner: asyncio.Task[None] | None = None
        self._threads: set[int] = set()  # threads this bot started
        self._files: OrderedDict[str, discord.Attachment] = OrderedDict()
        self._questions: dict[int, tuple[str, discord.ui.View]] = {}  # message -> (id, view)

    @property
    def rate_limited(self) -> int:
        """429s met (for status and tests)."""
        return self.budget.holds

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self, hub: Hub) -> None:
        self._hub = hub
        self.client = await self._login()  # a wrong token or base_url fails here
        self._runner = asyncio.create_task(self._run())

    async def _login(self) -> HermesClient:
        client = HermesClient(base_url=self.base_url, intents=intents(),
                              on_429=lambda channel, wait: self.budget.hold(str(channel), wait))
        self._wire(client)
        try:  # GET /users/@me, /gateway/bot, /oauth2/applications/@me
            await client.login(self.token)
        except BaseException:
            await client.close()
            raise
        assert client.user is not None
        self.bot_id = client.user.id
        return client

    def _wire(self, client: HermesClient) -> None:
        """Register the client's events."""
        async def on_connect() -> None:  # identified (READY's guild wait is not needed)
            self.connected = True

        async def on_message(message: discord.Message) -> None:
            await self._received(message)

        async def on_interaction(interaction: discord.Interaction) -> None:
            if interaction.type == discord.InteractionType.application_command:
                await self._command(interaction)
            else:
                await self._pressed(interaction)

        async def on_disconnect() -> None:
            self.connected = False

        for handler in (on_connect, on_message, on_interaction, on_disconnect):
            client.event(handler)

    async def _run(self) -> None:
        """Hold the websocket (while leader, with several workers)."""
        backoff = Backoff(5.0, 60.0)
        while True:
            if self.leadership is not None and not await self.leadership.hold():
                await asyncio.sleep(self.leadership.retry_s)
                continue
            client = self.client if self.client is not None and not self.client.is_closed() \
                else await self._login()
            self.client = client
            connect = asyncio.create_task(client.connect(reconnect=True))
            try:
                while not connect.done():
                    await asyncio.wait({connect}, timeout=self.leader_ttl / 3)
                    if self.leadership is not None and not connect.done() \
                            and not await self.leadership.hold():
                        break  # another worker took the lease: let it have the socket
            finally:
                self.connected = False
                await client.close()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await connect
            if connect.done() and not connect.cancelled() and connect.exception() is not None:
                sys.stderr.write(f"hermes: warning: discord: {connect.exception()}; reconnecting\n")
                await backoff.wait()
            else:
                backoff.reset()

    async def stop(self) -> None:
        self.connected = False
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.close()
        if self.leadership is not None:
            await self.leadership.release()

    @property
    def started(self) -> HermesClient:
        if self.client is None:
            raise RuntimeError("the Discord adapter has not started")
        return self.client

    # -- incoming ----------------------------------------------------------------------
    async def _received(self, message: discord.Message) -> None:
        if message.author.id == self.bot_id or message.author.bot or self._hub is None:
            return  # never itself, never another bot
        if message.type not in (discord.MessageType.default, discord.MessageType.reply):
            return  # system messages: a thread started, a pin, someone joined
        msg = await self.inbound(message)
        if msg is None:
            return
        try:
            await self._hub.handle(self, msg)
        except discord.HTTPException as exc:  # a refusal or notice that could not be sent
            sys.stderr.write(f"hermes: warning: discord channel {msg.chat_id}: {exc}\n")

    def _ours(self, channel: object) -> bool:
        """A thread this bot started (remembered, or known to discord.py's cache)."""
        if isinstance(channel, discord.Thread):
            return channel.id in self._threads or channel.owner_id == self.bot_id
        return getattr(channel, "id", None) in self._threads

    async def inbound(self, message: discord.Message) -> Inbound | None:
        """The platform-neutral message, the bot's mention stripped (None: nothing to
        answer); a mention in a channel starts the thread the answer goes to."""
        text = re.sub(rf"<@!?{self.bot_id}>", "", message.content).strip()
        docs: list[Document] = []
        photos: list[Document] = []
        for attachment in message.attachments:
            self._files[str(attachment.id)] = attachment
            while len(self._files) > KEEP_FILES:
                self._files.popitem(last=False)
            doc = Document(str(attachment.id), attachment.filename, attachment.size)
            (photos if (attachment.content_type or "").startswith("image/") else docs).append(doc)
        if not (text or docs or photos):
            return None
        channel = message.channel
        user = str(message.author.id)
        private = isinstance(channel, discord.DMChannel) or (
            isinstance(channel, discord.PartialMessageable) and channel.guild_id is None)
        where, addressed = channel.id, True
        if not private and not self._ours(channel):
            addressed = self.bot_id in message.raw_mentions
            if addressed and user in self.allowed_users:
                where = await self._thread_for(message, text) or where
        return Inbound("discord", str(where), user, text, "private" if private else "group",
                       None, addressed, message.id, tuple(docs), tuple(photos))

    async def _thread_for(self, message: discord.Message, text: str) -> int | None:
        """Start a thread from the message; None where threads are not allowed."""
        name = (text.splitlines()[0] if text else "hermes")[:90] or "hermes"
        try:
            thread = await message.create_thread(name=name, auto_archive_duration=1440)
        except (discord.HTTPException, ValueError, TypeError):
            return None  # no permission, a channel without threads: a reply instead
        self._threads.add(thread.id)
        return thread.id

    async def _pressed(self, interaction: discord.Interaction) -> None:
        if interaction.type != discord.InteractionType.component or self._hub is None:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom = str(data.get("custom_id", ""))
        answer = await self._hub.press(self.name, str(interaction.user.id), custom)
        await self._answer(interaction, answer)  # who may answer: gateway/chat/approvals

    async def _answer(self, interaction: discord.Interaction, text: str) -> None:
        """The interaction's answer, seen by its user only (within Discord's 3 s)."""
        route = Route("POST", "/interactions/{interaction_id}/{interaction_token}/callback",
                      interaction_id=interaction.id, interaction_token=interaction.token)
        with contextlib.suppress(discord.HTTPException):
            await self.started.http.request(route, json={
                "type": 4, "data": {"content": text[:LIMIT], "flags": 64}})

    async def _command(self, interaction: discord.Interaction) -> None:
        """A slash command: the same as typing `/name text` where it was used."""
        data: dict[str, Any] = dict(interaction.data or {})
        options = {str(o.get("name")): o.get("value") for o in data.get("options") or ()}
        text = f"/{data.get('name', '')} {options.get('text') or ''}".strip()
        await self._answer(interaction, text)
        if self._hub is None or interaction.channel_id is None:
            return
        private = interaction.guild_id is None  # in a channel: the channel's session
        await self._hub.handle(self, Inbound(
            "discord", str(interaction.channel_id), str(interaction.user.id), text,
            "private" if private else "group", None, True, None))

    # -- outgoing ----------------------------------------------------------------------
    def channel(self, msg: Inbound) -> discord.PartialMessageable:
        return self.started.get_partial_messageable(int(msg.chat_id))

    async def post(self, msg: Inbound, text: str, *, view: discord.ui.View | None = None,
                   budgeted: bool = True) -> discord.Message:
        """Send one piece (at most LIMIT characters) to the message's channel: a reply to
        the message where the answer is not in a DM or the bot's thread."""
        if budgeted:
            await self.budget.send(msg.chat_id)
        channel = self.channel(msg)
        kwargs: dict[str, Any] = {"allowed_mentions": discord.AllowedMentions.none()}
        if msg.group and msg.message_id is not None and int(msg.chat_id) not in self._threads \
                and not self._ours(self.started.get_channel(int(msg.chat_id))):
            kwargs["reference"] = channel.get_partial_message(msg.message_id).to_reference(
                fail_if_not_exists=False)
        if view is not None:
            kwargs["view"] = view
        return await channel.send(text, **kwargs)

    def reply(self, msg: Inbound) -> DiscordReply:
        return DiscordReply(self, msg, self.edit_interval)

    async def notify(self, msg: Inbound, text: str) -> None:
        for piece in split_message(text, LIMIT):
            await self.post(msg, piece)

    async def deliver(self, chat: str, text: str, thread: str | None = None) -> None:
        """A scheduled job's answer in channel `chat` (gateway/chat/base.Delivering; a
        thread is a channel of its own: `thread` is not needed).
        A standby worker has closed its client (the leader holds it): Undelivered, and
        a later attempt (any worker's retry sweep) finds the leader's."""
        if self.client is None or self.client.is_closed():
            raise Undelivered("discord: the bot is not connected on this worker (another "
                              "worker leads); retried later")
        channel = self.client.get_partial_messageable(int(chat))

        async def send(piece: str) -> None:
            await self.budget.send(chat)
            await channel.send(piece, allowed_mentions=discord.AllowedMentions.none())

        await send_pieces(split_message(text, LIMIT), send, discord.HTTPException,
                          lambda exc: f"discord: {exc}")

    async def ask(self, msg: Inbound, text: str, ident: str) -> int:
        """A question with two buttons (an approval); returns its message id."""
        view = discord.ui.View(timeout=None)
        view.add_item(discord.ui.Button(label="Approve once", custom_id=f"approve:{ident}",
                                        style=discord.ButtonStyle.success))
        view.add_item(discord.ui.Button(label="Refuse", custom_id=f"deny:{ident}",
                                        style=discord.ButtonStyle.danger))
        *leading, last = split_message(text, LIMIT)  # the question whole, buttons last
        for piece in leading:
            await self.post(msg, piece)
        sent = await self.post(msg, last, view=view)
        self._questions[sent.id] = (ident, view)
        return sent.id

    async def settle(self, msg: Inbound, message_id: int, text: str) -> None:
        """The question answered: its text replaced, the buttons gone (and forgotten)."""
        _, view = self._questions.pop(message_id, ("", None))
        if view is not None:
            view.stop()  # out of discord.py's view store
        await self.budget.send(msg.chat_id)
        await self.channel(msg).get_partial_message(message_id).edit(content=text[:LIMIT], view=None)

    async def download(self, doc: Document) -> bytes:
        attachment = self._files.pop(doc.file_id, None)
        if attachment is None:
            raise RuntimeError(f"{doc.name}: the attachment is no longer known")
        return await attachment.read()

    async def register_commands(self, commands: list[tuple[str, str]]) -> None:
        """The chat commands as global slash commands (typed text works as well)."""
        client = self.started
        if client.application_id is None:
            return
        await client.http.bulk_upsert_global_commands(client.application_id, [
            {"name": name, "description": (desc or name)[:100], "type": 1, "options": [
                {"type": 3, "name": "text", "description": "what follows the command",
                 "required": False}]} for name, desc in commands])


class DiscordReply:
    """One answer: typing, a streamed message edited in place, the final text
    (gateway/chat/kit/stream.py)."""

    def __init__(self, adapter: DiscordAdapter, msg: Inbound, interval: float) -> None:
        self.adapter = adapter
        self.msg = msg
        self.stream = EditStream(
            adapter.budget, msg.chat_id, interval, LIMIT, split_message,
            post=lambda text: adapter.post(msg, text, budgeted=False),
            edit=lambda message, text: message.edit(content=text),
            final_edit=self._final_edit, final_send=lambda piece: adapter.post(msg, piece),
            errors=(discord.HTTPException,))

    async def typing(self) -> None:
        await self.adapter.channel(self.msg).typing()

    async def _final_edit(self, message: discord.Message, piece: str) -> None:
        await self.adapter.budget.send(self.msg.chat_id)
        await message.edit(content=piece)

    async def update(self, text: str) -> None:
        await self.stream.update(text)

    async def finish(self, text: str) -> None:
        await self.stream.finish(text)
