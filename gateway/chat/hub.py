"""ChatHub: the platform-independent half of every chat platform.

An adapter (base.py) hands each incoming message to `handle`. The hub
- refuses who is not allowed (deny by default; one short refusal per user and chat,
  never a model call), ignores group messages not addressed to the bot (by config);
- maps the message to its session (base.session_of) and runs it through the shared
  gateway.sessions.Gateway, exactly as the HTTP API does: the same agent cache, the
  per-session lock, stored-session reuse after a restart, commands and daily spend;
- keeps one queue per session: a message that arrives while a turn of the same
  session runs is answered next, never at the same time; /stop cancels the running
  turn at once (the queued ones stay);
- renders the turn through the adapter's Reply: typing indicator, streamed partial
  text, the final text.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio

from agent.cancel import CancelToken
from agent.usage import ZERO, Usage, usd
from frontend import command_table as table
from frontend.bridge import END, EventBridge
from frontend.outcome import TextFold
from gateway.chat import files
from gateway.chat.approvals import Approvals
from gateway.chat.base import Adapter, ChatPolicy, Inbound, Reply, session_of
from gateway.chat.kit.ledger import Ledger
from gateway.ratelimit import admission, command_admission
from gateway.sessions import Gateway, ShuttingDown, TurnRequest
from memory.inbound import Taken
from memory.outbox import Outbox

if TYPE_CHECKING:
    from frontend.custom_commands import CustomCommand

#: every conversation command the gateway offers (the one table), plus the chat's own
CHAT_COMMANDS = ("new", "usage", *(c.name for c in table.COMMANDS
                                   if c.gateway and c.name not in ("new", "usage")), "stop", "help")
REFUSAL = "Sorry, this bot answers only the people its owner allowed."
TYPING_EVERY = 4.5  # s; Telegram shows "typing" for 5 s per action


def command_list() -> list[tuple[str, str]]:
    """(name, description) of the chat commands, for the platform's command menu."""
    out = []
    for name in CHAT_COMMANDS:
        found = table.lookup(name)
        out.append((name, found.help if found else "Stop the running answer"))
    return out


@dataclass
class PlatformStats:
    messages: int = 0
    refused: int = 0
    turns: int = 0
    usage: Usage = ZERO
    keys: set[str] = field(default_factory=set)


@dataclass
class _Chat:
    queue: asyncio.Queue[tuple[Adapter, Inbound, str, str]] = field(default_factory=asyncio.Queue)
    worker: asyncio.Task[None] | None = None
    running: CancelToken | None = None


class ChatHub:
    """Messages of every chat platform -> turns of the shared Gateway."""

    def __init__(self, gateway: Gateway, policies: dict[str, ChatPolicy]) -> None:
        self.gateway = gateway
        self.policies = policies
        self.adapters: list[Adapter] = []
        self.stats: dict[str, PlatformStats] = defaultdict(PlatformStats)
        self._chats: dict[str, _Chat] = {}
        self._refused: set[tuple[str, str, str]] = set()
        self.approvals = Approvals(policies)
        handle = getattr(gateway.store, "handle", None)
        self.ledger = Ledger(Outbox(handle) if handle is not None else None)
        self._taken = Taken(handle) if handle is not None else None

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self, adapters: list[Adapter]) -> None:
        """Start each platform; one that cannot connect (a wrong token, no network) is
        reported in one line and left out, so the others and the HTTP API still run."""
        self.approvals.loop = asyncio.get_running_loop()
        self.gateway.approver = self.approvals.approver_for
        if self._taken is not None:
            await anyio.to_thread.run_sync(self._taken.prune)
        for adapter in adapters:
            try:
                await adapter.start(self)
            except Exception as exc:  # noqa: BLE001 - said in one line, the rest goes on
                sys.stderr.write(f"hermes: warning: {adapter.name}: cannot connect: {exc} "
                                 "(check its token and base_url)\n")
                continue
            self.adapters.append(adapter)
            with contextlib.suppress(Exception):  # a menu is a nicety, never fatal
                await adapter.register_commands(command_list())
        self.ledger.watch(self.adapters)  # what a platform refused before: sent now

    async def first_delivery(self, platform: str, message_id: str) -> bool:
        """False when this message id was taken before - by this worker before a restart,
        or by another worker on the same store (memory/inbound.py); True without a store."""
        taken = self._taken
        if taken is None:
            return True
        return await anyio.to_thread.run_sync(taken.first, platform, message_id)

    async def stop(self) -> None:
        await self.ledger.stop()
        for chat in self._chats.values():
            if chat.running is not None:
                chat.running.cancel()
        for adapter in self.adapters:
            await adapter.stop()
        workers = [c.worker for c in self._chats.values() if c.worker is not None]
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)

    def status(self) -> dict[str, dict[str, dict[str, object]]]:
        """Platforms connected, sessions cached and hit rate per platform (for /health)."""
        out: dict[str, dict[str, object]] = {}
        for adapter in self.adapters:
            stats = self.stats[adapter.name]
            rate = stats.usage.hit_rate if stats.turns else None
            out[adapter.name] = {
                "connected": adapter.connected, "messages": stats.messages,
                "refused": stats.refused, "turns": stats.turns,
                "sessions_cached": sum(1 for k in stats.keys if k in self.gateway.cache),
                "hit_rate": None if rate is None else round(rate, 4)}
            leadership = getattr(adapter, "leadership", None)
            if leadership is not None:  # one poller per bot across the workers
                out[adapter.name].update(leadership.status())
        return {"platforms": out}

    # -- incoming ----------------------------------------------------------------------
    async def handle(self, adapter: Adapter, msg: Inbound) -> None:
        """One message from `adapter` (returns at once; the answer follows)."""
        policy = self.policies.get(msg.platform, ChatPolicy())
        stats = self.stats[msg.platform]
        stats.messages += 1
        if msg.group and policy.mention_only and not msg.addressed:
            return  # group chatter not meant for the bot: not even a refusal
        if not policy.allows(msg):
            stats.refused += 1
            if (msg.platform, msg.chat_id, msg.user_id) not in self._refused:
                self._refused.add((msg.platform, msg.chat_id, msg.user_id))
                await adapter.notify(msg, REFUSAL)
            return
        owner, name = session_of(msg, policy)
        self.approvals.owners.add(owner)
        key = f"{owner}:{name}"
        stats.keys.add(key)
        parsed = table.parse(msg.text)
        if parsed is not None and parsed[0] in ("stop", "help", "start"):
            await self._immediate(adapter, msg, key, parsed[0])
            return
        chat = self._chats.setdefault(key, _Chat())
        chat.queue.put_nowait((adapter, msg, owner, name))
        if chat.worker is None or chat.worker.done():
            chat.worker = asyncio.create_task(self._drain(key, chat))

    async def press(self, platform: str, user_id: str, data: str) -> str:
        """A button pressed (an approval's answer); the short text shown to the presser."""
        return self.approvals.answer(platform, user_id, data)

    async def _immediate(self, adapter: Adapter, msg: Inbound, key: str, name: str) -> None:
        if name in ("help", "start"):  # /start: what Telegram sends on first contact
            lines = [f"/{n} - {d}" for n, d in command_list()]
            customs = self.gateway.base.commands
            lines += [f"/{c.name} - {c.description or 'custom command'}"
                      for c in (customs.commands if customs else ())]
            await adapter.notify(msg, "Commands:\n" + "\n".join(lines))
            return
        self.approvals.refuse_all(key.partition(":")[0])
        chat = self._chats.get(key)
        if chat is None or chat.running is None:
            await adapter.notify(msg, "Nothing is running.")
            return
        chat.running.cancel()

    def _custom(self, name: str) -> CustomCommand | None:
        """The custom command `name` (HERMES_HOME/commands), or None."""
        customs = self.gateway.base.commands
        return customs.get(name) if customs else None

    async def _drain(self, key: str, chat: _Chat) -> None:
        while not chat.queue.empty():
            adapter, msg, owner, name = chat.queue.get_nowait()
            try:
                await self._one(adapter, msg, owner, name, chat)
            except ShuttingDown:
                await adapter.notify(msg, "The gateway is shutting down; send it again later.")
            except Exception as exc:  # noqa: BLE001 - the chat hears one line, the log the rest
                sys.stderr.write(f"hermes gateway: {msg.platform} chat {msg.chat_id}:\n")
                traceback.print_exception(exc, file=sys.stderr)
                with contextlib.suppress(Exception):
                    await adapter.notify(msg, f"Something went wrong: {exc}")
        self._chats.pop(key, None)  # no await since the queue was empty: nothing lost

    async def _one(self, adapter: Adapter, msg: Inbound, owner: str, name: str,
                   chat: _Chat) -> None:
        parsed = table.parse(msg.text)
        text = msg.text
        if parsed is not None:
            command = table.lookup(parsed[0])
            custom = self._custom(parsed[0]) if command is None else None
            if custom is None and (command is None or command.name not in CHAT_COMMANDS):
                await adapter.notify(msg, f"Unknown command /{parsed[0]}. Try /help.")
                return
            if custom is not None or command is None:
                command = None  # a custom command's text runs as a turn (below)
            elif not command.calls_model and self.gateway.rates.any and \
                    (over := await anyio.to_thread.run_sync(command_admission, self.gateway, owner)):
                await adapter.notify(msg, over.message.replace("for this API key", "for this chat"))
                return
            elif command.name == "usage":  # the shared report, in the chat's own words
                result = await self.gateway.run(TurnRequest(owner, name, text))
                daily = await anyio.to_thread.run_sync(self.gateway.daily.status, owner)
                text = result.answer  # the one usage text (or why the command failed)
                if result.reply is not None and daily and daily.get("daily_usd") is not None:
                    text += (f"\nToday: {usd(daily['spent_today_usd'])} of "
                             f"{usd(daily['daily_usd'])}")
                await adapter.notify(msg, text)
                return
            if command is not None and not command.calls_model:  # as over HTTP
                result = await self.gateway.run(TurnRequest(owner, name, text))
                await adapter.notify(msg, result.answer)
                return
            # /compress and /retry call the model: a turn, spend-checked and shown live
        if msg.documents:
            text = await self._save_documents(adapter, msg, owner, text)
        over = None  # the daily spend, then the rate limits; no thread hop without limits
        if self.gateway.daily.limit_usd is not None or self.gateway.rates.any:
            over = await anyio.to_thread.run_sync(admission, self.gateway, owner)
        if over is not None:
            await adapter.notify(msg, over.message.replace("for this API key", "for this chat"))
            return
        photos = tuple([(photo.name, await adapter.download(photo)) for photo in msg.photos])
        await self._turn(adapter, msg, TurnRequest(owner, name, text, images=photos), chat)

    async def _save_documents(self, adapter: Adapter, msg: Inbound, owner: str,
                              text: str) -> str:
        """Save the message's files into the chat's workspace; the text names them."""
        saved, refused = [], []
        for doc in msg.documents:
            if doc.size is not None and doc.size > files.MAX_BYTES:
                refused.append(files.safe_name(doc.name))
                continue
            data = await adapter.download(doc)
            name, problem = await anyio.to_thread.run_sync(files.save, self.gateway.base.home,
                                                           owner, doc, data)
            if problem:
                refused.append(problem)
            else:
                saved.append(f"uploads/{name}")
        note = files.mention(saved, refused)
        return f"{text}\n\n{note}" if text.strip() else note

    async def _turn(self, adapter: Adapter, msg: Inbound, request: TurnRequest,
                    chat: _Chat) -> None:
        bridge = EventBridge()
        cancel = CancelToken()
        chat.running = cancel
        self.approvals.running[request.owner] = (adapter, msg)
        reply = adapter.reply(msg)
        task = bridge.start(self.gateway.run(request, bridge.sink, cancel))
        typing = asyncio.create_task(_keep_typing(reply))
        text, fold = "", TextFold()
        try:
            ended = False
            while not ended:
                for item in await bridge.batch():
                    ended = ended or item is END
                    text += fold.feed(item)
                if not ended and text:
                    await reply.update(text)
        finally:
            typing.cancel()
            chat.running = None
            if self.approvals.running.get(request.owner, (None, None))[1] is msg:
                del self.approvals.running[request.owner]
        result = await task
        final = result.answer or text
        if result.reason == "cancelled":
            final = (final + "\n\n" if final else "") + "(stopped)"
        elif result.error is not None:
            final = (final + "\n\n" if final else "") + f"Error: {result.error.message}"
        try:
            await reply.finish(final or "(no answer)")
        except Exception as exc:  # the platform refused it: the ledger sends it later
            rest = getattr(exc, "rest", None)  # the pieces it did not take (kit/pieces.py)
            if not await self.ledger.keep(msg.platform, msg.chat_id, rest or final or "(no answer)",
                                          thread=msg.reply_thread, error=str(exc)):
                raise
            sys.stderr.write(f"hermes: warning: {msg.platform} chat {msg.chat_id}: the answer "
                             f"was not accepted ({exc}); kept and sent again later\n")
        finally:
            stats = self.stats[msg.platform]
            stats.turns += 1
            stats.usage = stats.usage + result.usage


async def _keep_typing(reply: Reply) -> None:
    while True:
        with contextlib.suppress(Exception):
            await reply.typing()
        await asyncio.sleep(TYPING_EVERY)
