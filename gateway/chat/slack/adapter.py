"""The Slack platform: a Bolt app on Socket Mode (no public URL), the Web API client.

- `start` checks the bot token (auth.test: the bot's user id, bot id and team) and
  opens the socket (apps.connections.open gives its URL; `base_url` is the only
  address configured). With several gateway workers only the holder of the lease
  `slack:<app token hash>` keeps the socket open (gateway/chat/leader.py); the others
  stand by and take over within the lease's TTL.
- Bolt acks every envelope as it arrives (events are acked before they are handled;
  a button press is acked first thing), so Slack never waits 3 s.
- Writes to a channel draw from one ChatBudget (gateway/chat/budget.py) sized to
  Slack's limits: sends wait for a token, interim stream appends are skipped under
  pressure, a 429 holds the channel for its Retry-After and the call is made again.
- Approvals: a message with Block Kit buttons (the question whole, in as many sections
  as it takes); who may press them is gateway/chat/approvals.py's rule (others are told
  so, privately); the answer replaces the buttons.
- Files: fetched through files.info and its `url_private_download`, with the bot token,
  only from Slack's own host (the base_url's in tests), never more than the hub's limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import aiohttp
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from frontend import command_table as table
from gateway.chat import files
from gateway.chat.budget import ChatBudget
from gateway.chat.kit.connection import Backoff
from gateway.chat.kit.pieces import send_pieces
from gateway.chat.kit.threads import stored_thread
from gateway.chat.kit.writer import BudgetedWriter
from gateway.chat.slack.events import Recent, Seen, SlackInbound, inbound
from gateway.chat.slack.facts import FACTS
from gateway.chat.slack.reply import ROOM, SlackReply
from gateway.chat.text import split_message

if TYPE_CHECKING:
    from gateway.chat.base import Document, Hub, Inbound
    from gateway.chat.leader import Leadership

DEFAULT_BASE_URL = FACTS.base_url
FILE_HOSTS = ("files.slack.com",)
RETRIES = 5
# Slack: chat.postMessage about 1 a second per channel (short bursts allowed), chat.update
# about 50 a minute: 0.75 a second with a burst of 2 stays under both
RATE_PER_S = 0.75
BURST = 2
ACTIONS = re.compile(r"^hermes_(approve|deny)$")
SECTION = 2900  # characters of mrkdwn in one section block (Slack: 3,000)
SLASH = "/hermes"  # the app manifest's one slash command (README)


def _error_of(exc: BaseException) -> object:
    return exc.response.get("error", exc) if isinstance(exc, SlackApiError) else exc


def retry_after(exc: SlackApiError) -> float:
    """The Retry-After of a 429 (seconds; 1 when Slack gave none)."""
    headers = getattr(exc.response, "headers", None) or {}
    for key, value in dict(headers).items():
        if str(key).lower() == "retry-after":
            with contextlib.suppress(TypeError, ValueError):
                return max(0.0, float(value if not isinstance(value, list) else value[0]))
    return 1.0


def _retry_of(exc: BaseException) -> float | None:
    """The wait a 429 names; None for any other failure (BudgetedWriter)."""
    if isinstance(exc, SlackApiError) and exc.response.status_code == 429:
        return retry_after(exc)
    return None


def escape(text: str) -> str:
    """Text for a Slack `text` / mrkdwn field: only &, < and > are special."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class SlackRefused(Exception):
    """A token Slack does not accept (said in one line by the hub)."""


_NAMES = "|".join(sorted({c.name for c in table.COMMANDS} | {"help", "stop"}, key=len,
                         reverse=True))
_NAMED = re.compile(rf"(?<![\w/.~:-])/(?=(?:{_NAMES})\b)")  # a command named in a notice


def bang(text: str) -> str:
    """The hub's command notices as Slack users type commands: `!help`, `!model NAME`,
    not `/help` (Slack keeps /words for its own slash commands; events.py maps them back)."""
    if text.startswith("Commands:\n"):  # custom commands' names too
        text = re.sub(r"(?m)^/(?=[\w-]+ - )", "!", text)
    return _NAMED.sub("!", text)


class SlackAdapter:
    """The Slack platform: one Bolt app, one Socket Mode connection (while leader)."""

    name = "slack"

    def __init__(self, bot_token: str, app_token: str, *, base_url: str | None = None,
                 edit_interval: float = 1.5) -> None:
        self.bot_token = bot_token
        self.token = app_token  # the lease is per app token (leader.Polling)
        self.base_url = base_url or DEFAULT_BASE_URL
        self.edit_interval = edit_interval
        self.connected = False
        self.web = AsyncWebClient(token=bot_token, base_url=self.base_url)
        self.budget = ChatBudget(RATE_PER_S, BURST)
        self.bot_user = ""
        self.bot_id = ""
        self.team_id = ""
        self.writer = BudgetedWriter(lambda _chat: self.budget, _retry_of, RETRIES)
        self.leader_ttl = 30.0
        self.leadership: Leadership | None = None
        self.hub: Hub | None = None
        self._handler: AsyncSocketModeHandler | None = None
        self._keeper: asyncio.Task[None] | None = None
        self._seen = Seen()
        self._threads = Recent()  # (channel, root ts) answered in lately (else: routes)
        self._asked: dict[int, tuple[str, str, str]] = {}  # handle -> (channel, ts, asker)
        self._handles = itertools.count(1)

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self, hub: Hub) -> None:
        self.hub = hub
        try:
            auth = await self.web.auth_test()  # a wrong bot token fails here
        except SlackApiError as exc:
            raise SlackRefused(f"Slack refused SLACK_BOT_TOKEN: {exc.response.get('error')}") \
                from None
        self.bot_user, self.bot_id = str(auth["user_id"]), str(auth.get("bot_id") or "")
        self.team_id = str(auth.get("team_id") or "")
        try:  # the SDK would retry a wrong app token for ever: ask once here
            await self.web.apps_connections_open(app_token=self.token)
        except SlackApiError as exc:
            raise SlackRefused(f"Slack refused SLACK_APP_TOKEN: {exc.response.get('error')}") \
                from None
        if self.leadership is None:
            await self._connect()
        self._keeper = asyncio.create_task(self._keep())

    async def stop(self) -> None:
        if self._keeper is not None:
            self._keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._keeper
        await self._disconnect()
        if self.leadership is not None:
            await self.leadership.release()

    def _app(self) -> AsyncApp:
        async def authorize(enterprise_id: str | None, user_id: str | None) -> AuthorizeResult:
            """Bolt's authorization from start()'s auth.test: no Web API call per event,
            so events reach the hub in the order they came (first calls would race)."""
            return AuthorizeResult(enterprise_id=enterprise_id, team_id=self.team_id,
                                   bot_user_id=self.bot_user, bot_id=self.bot_id,
                                   bot_token=self.bot_token, user_id=user_id)

        app = AsyncApp(client=AsyncWebClient(base_url=self.base_url), authorize=authorize,
                       request_verification_enabled=False,
                       # a logger whose level follows "slack_bolt" (gateway/library_logs.py);
                       # Bolt's own is pinned to the root logger's level
                       logger=logging.getLogger("slack_bolt.hermes"))
        app.event("message")(self._on_event)
        app.event("app_mention")(self._on_event)
        app.action(ACTIONS)(self._on_action)
        app.command(SLASH)(self._on_command)
        return app

    async def _connect(self) -> None:
        handler = AsyncSocketModeHandler(self._app(), self.token, web_client=self.web)
        await handler.connect_async()
        self._handler, self.connected = handler, True

    async def _disconnect(self) -> None:
        handler, self._handler = self._handler, None
        self.connected = False
        if handler is not None:
            with contextlib.suppress(Exception):
                await handler.close_async()

    async def _keep(self) -> None:
        """Hold the socket while this worker holds the lease (always, alone)."""
        backoff = Backoff()
        while True:
            leader = self.leadership is None or await self.leadership.hold()
            try:
                if leader and self._handler is None:
                    await self._connect()
                elif not leader and self._handler is not None:
                    await self._disconnect()
                backoff.reset()
            except Exception as exc:  # noqa: BLE001 - said once per failure, retried
                sys.stderr.write(f"hermes: warning: slack: cannot connect: {exc}; retrying\n")
                await backoff.wait()
                continue
            if self.leadership is None:
                return  # one worker: the SDK reconnects by itself
            await asyncio.sleep(self.leadership.poll_cap if leader else self.leadership.retry_s)

    # -- incoming ----------------------------------------------------------------------
    async def _on_event(self, event: dict[str, Any]) -> None:
        msg = inbound(event, self.bot_user, self._threads)
        if msg is None or self.hub is None or not self._seen.first(msg.chat_id, msg.ts):
            return
        if msg.group and not msg.addressed and event.get("thread_ts") and \
                await stored_thread(self.hub, msg):
            msg = replace(msg, addressed=True)  # answered there before a restart / takeover
        if msg.group and msg.addressed and msg.thread_id is not None:
            self._threads.add((msg.chat_id, str(msg.thread_id)))
        try:
            await self.hub.handle(self, msg)
        except SlackApiError as exc:  # a refusal or notice that could not be sent
            self.warn(msg.chat_id, exc)

    async def _on_command(self, ack: Any, command: dict[str, Any]) -> None:
        """`/hermes usage` (the app's one slash command): in a DM, the command `/usage`;
        elsewhere a private hint (a slash command carries no thread: use `!usage` there)."""
        await ack()
        channel, user = str(command.get("channel_id", "")), str(command.get("user_id", ""))
        words = str(command.get("text") or "").strip().lstrip("/!") or "help"
        if self.hub is None or not channel or not user:
            return
        if not channel.startswith("D"):
            with contextlib.suppress(SlackApiError):
                await self.write(channel, "chat_postEphemeral", user=user,
                                 text=f"In a channel, write `!{escape(words)}` in the bot's thread.")
            return
        msg = SlackInbound("slack", channel, user, f"/{words}", "private",
                           team=str(command.get("team_id") or ""))
        try:
            await self.hub.handle(self, msg)
        except SlackApiError as exc:
            self.warn(channel, exc)

    async def _on_action(self, ack: Any, body: dict[str, Any]) -> None:
        await ack()
        user = str((body.get("user") or {}).get("id", ""))
        channel = str((body.get("channel") or body.get("container", {})).get("id", "")
                      or body.get("container", {}).get("channel_id", ""))
        thread = str((body.get("message") or {}).get("thread_ts") or "") or None
        for action in body.get("actions") or ():
            found = ACTIONS.match(str(action.get("action_id", "")))
            if found is None or self.hub is None:
                continue
            ident = str(action.get("value", ""))  # who may answer: gateway/chat/approvals
            answer = await self.hub.press(self.name, user, f"{found.group(1)}:{ident}")
            with contextlib.suppress(SlackApiError):
                await self.write(channel, "chat_postEphemeral", user=user, text=answer,
                                 thread_ts=thread)

    @property
    def rate_limited(self) -> int:
        """429s met (for status and tests)."""
        return self.writer.limited

    # -- outgoing ----------------------------------------------------------------------
    async def write(self, chat: str, method: str, *, interim: bool = False,
                    **kwargs: Any) -> Any:
        """`web.<method>(channel=chat, **kwargs)` through the chat's budget; a 429 holds
        the chat for its Retry-After and (unless `interim`: then None) is made again."""
        kwargs.setdefault("channel", chat)
        call = getattr(self.web, method)
        return await self.writer.write(chat, lambda: call(**kwargs), interim=interim)

    def warn(self, chat: str, exc: SlackApiError) -> None:
        sys.stderr.write(f"hermes: warning: slack channel {chat}: "
                         f"{exc.response.get('error', exc)}\n")

    def reply(self, msg: Inbound) -> SlackReply:
        assert isinstance(msg, SlackInbound)
        return SlackReply(self, msg, self.edit_interval)

    def _where(self, msg: Inbound) -> dict[str, Any]:
        """A notice goes where the user wrote: the thread (channels, DM threads), or the DM."""
        if isinstance(msg, SlackInbound) and (msg.group or msg.thread):
            return {"thread_ts": msg.reply_thread}
        return {}

    async def notify(self, msg: Inbound, text: str) -> None:
        for piece in split_message(bang(text), ROOM):
            await self.write(msg.chat_id, "chat_postMessage", markdown_text=piece,
                             **self._where(msg))

    async def deliver(self, chat: str, text: str, thread: str | None = None) -> None:
        """A scheduled job's answer (or a kept reply, in its `thread`) in channel `chat`
        (gateway/chat/base.Delivering): the Web API works on a standby worker too (only
        the socket is the leader's)."""
        where: dict[str, Any] = {"thread_ts": thread} if thread else {}
        await send_pieces(split_message(text, ROOM),
                          lambda piece: self.write(chat, "chat_postMessage", markdown_text=piece, **where),
                          SlackApiError, lambda exc: f"slack: {_error_of(exc)}")

    async def ask(self, msg: Inbound, text: str, ident: str) -> int:
        """A question with two buttons (an approval) only `msg`'s user may press; its handle."""
        sections = [{"type": "section", "text": {"type": "mrkdwn", "text": piece}}
                    for piece in split_message(escape(text), SECTION)]  # the question whole
        blocks = [
            *sections,
            {"type": "actions", "block_id": "approval", "elements": [
                {"type": "button", "action_id": "hermes_approve", "value": ident,
                 "style": "primary", "text": {"type": "plain_text", "text": "Approve once"}},
                {"type": "button", "action_id": "hermes_deny", "value": ident,
                 "style": "danger", "text": {"type": "plain_text", "text": "Refuse"}}]}]
        sent = await self.write(msg.chat_id, "chat_postMessage", text=escape(text),
                                blocks=blocks, **self._where(msg))
        handle = next(self._handles)
        self._asked[handle] = (msg.chat_id, str(sent["ts"]), ident)
        return handle

    async def settle(self, msg: Inbound, message_id: int, text: str) -> None:
        """The question answered: its buttons replaced by `text`."""
        channel, ts, _ = self._asked.pop(message_id)
        shown = escape(text)[:SECTION]
        await self.write(channel, "chat_update", ts=ts, text=shown, blocks=[
            {"type": "section", "text": {"type": "mrkdwn", "text": shown}}])

    async def download(self, doc: Document) -> bytes:
        """The file's bytes: files.info, then its private URL with the bot token (only
        from Slack's file host or the Web API's own host)."""
        info = await self.web.files_info(file=doc.file_id)
        url = str((info.get("file") or {}).get("url_private_download") or "")
        host = urlsplit(url).netloc
        if not url or host not in (*FILE_HOSTS, urlsplit(self.base_url).netloc):
            raise ValueError(f"Slack gave a download address on another host ({host or 'none'})")
        headers = {"Authorization": f"Bearer {self.bot_token}"}
        async with aiohttp.ClientSession() as session, \
                session.get(url, headers=headers, allow_redirects=False) as got:
            if got.status != 200 or got.content_type == "text/html":
                raise ValueError(f"Slack refused the download of {doc.name} "
                                 "(is the files:read scope granted?)")
            data = await got.content.read(files.MAX_BYTES + 1)
        if len(data) > files.MAX_BYTES:
            raise ValueError(f"{doc.name} is larger than 20 MB")
        return data

    async def register_commands(self, commands: list[tuple[str, str]]) -> None:
        """Slack's slash commands are declared in the app manifest (README), not by the bot."""
