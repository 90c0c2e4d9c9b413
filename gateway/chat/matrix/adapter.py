"""The Matrix platform: matrix-nio's AsyncClient with an access token, a /sync loop.

- `start` checks the token (whoami), reads the bot's display name (a mention by name
  counts). The loop long-polls /sync with its since token, kept in `since_file` after
  each batch is handled: after a restart the messages sent meanwhile are answered. With
  no token kept (the first start) one sync without waiting comes first: what happened
  before is not answered, its invites are.
- Invites from an allowed user are accepted (joined); others are ignored with a log
  line. An encrypted room (m.room.encryption, or an m.room.encrypted event) gets one
  notice that encrypted rooms are not supported yet, and a log line; nothing in it is
  read.
- Writes draw from one ChatBudget (gateway/chat/budget.py) sized to Synapse's default
  rc_message (a burst, then one event every 5 s), under one key for the whole account:
  the homeserver limits a sender across all its rooms, so two busy rooms share it. New
  messages wait for a token, interim edits are skipped when none is there; an
  `M_LIMIT_EXCEEDED` holds the account for its `retry_after_ms` and the same
  transaction is sent again (interim edits: skipped).
- Approvals: the question is a message in the thread; a reaction (✅ / 👍 allows once,
  ❌ / 👎 refuses) by the asker answers it (the shared rule, gateway/chat/approvals.py;
  others are told so); the question is then edited to its outcome.
- With several gateway workers only the holder of the lease `matrix:<token hash>` syncs
  (gateway/chat/leader.py); the others stand by.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import uuid
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nio import AsyncClient, AsyncClientConfig, RoomSendResponse, SyncResponse, WhoamiResponse

from gateway.chat.budget import ChatBudget
from gateway.chat.kit.pieces import send_pieces
from gateway.chat.kit.threads import stored_thread
from gateway.chat.matrix.events import MatrixInbound, inbound
from gateway.chat.matrix.facts import BURST, RATE_PER_S
from gateway.chat.matrix.reply import MatrixReply, edit, message, parts

if TYPE_CHECKING:
    from gateway.chat.base import Document, Hub, Inbound
    from gateway.chat.leader import Leadership

RETRIES = 5
POLL_MS = 30_000
ENCRYPTED = ("This room is end-to-end encrypted, and hermes does not support encrypted rooms "
             "yet: it cannot read messages here. Start a room without encryption and invite "
             "it there.")
THREADS_KEPT = 4096
ACCOUNT = "account"  # the budget's one key: Synapse limits a sender, not a room
YES, NO = ("✅", "👍"), ("❌", "👎")
ASK_HINT = "React ✅ to allow it once or ❌ to refuse."


class MatrixRefused(Exception):
    """The homeserver did not accept the access token (one line from the hub)."""


class MatrixError(Exception):
    """A write the homeserver refused (not a rate limit)."""


class MatrixAdapter:
    """The Matrix platform (see the module docstring)."""

    name = "matrix"

    def __init__(self, token: str, *, homeserver: str, user_id: str,
                 allowed_users: frozenset[str], edit_interval: float = 2.0,
                 since_file: Path | None = None) -> None:
        self.token = token  # the lease is per token (leader.Polling)
        self.homeserver = homeserver
        self.user_id = user_id
        self.allowed_users = allowed_users
        self.edit_interval = edit_interval
        self.connected = False
        self.display_name = ""
        self.budget = ChatBudget(RATE_PER_S, BURST)
        self.rate_limited = 0  # M_LIMIT_EXCEEDED met (for status and tests)
        self.leader_ttl = 30.0
        self.leadership: Leadership | None = None
        self.hub: Hub | None = None
        self.client = AsyncClient(homeserver, user_id, config=AsyncClientConfig(
            max_limit_exceeded=0, max_timeouts=3, store_sync_tokens=False,
            encryption_enabled=False))
        self.client.access_token = token
        self.since_file = since_file
        self._since: str | None = None
        self._loop: asyncio.Task[None] | None = None
        self._threads: set[tuple[str, str]] = set()
        self._encrypted: set[str] = set()  # rooms told they are not supported
        self._questions: dict[str, str] = {}  # question event id -> approval id
        self._asked: dict[int, str] = {}  # ask() handle -> question event id
        self._threads_of: dict[str, str | None] = {}  # question event id -> its thread
        self._handles = 0

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self, hub: Hub) -> None:
        self.hub = hub
        who = await self.client.whoami()
        if not isinstance(who, WhoamiResponse):
            await self.client.close()
            raise MatrixRefused(f"the homeserver refused MATRIX_ACCESS_TOKEN: {who.status_code}")
        if who.user_id != self.user_id:
            sys.stderr.write(f"hermes: warning: matrix: the token belongs to {who.user_id}, "
                             f"not gateway.matrix.user_id {self.user_id}; using {who.user_id}\n")
            self.user_id = self.client.user_id = who.user_id
        self.client.device_id = who.device_id or ""
        name = await self.client.get_displayname(self.user_id)
        self.display_name = str(getattr(name, "displayname", "") or "")
        if self.since_file is not None and self.since_file.is_file():
            self._since = self.since_file.read_text(encoding="utf-8").strip() or None
        self._loop = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._loop
        self.connected = False
        await self.client.close()
        if self.leadership is not None:
            await self.leadership.release()

    async def _run(self) -> None:
        backoff = 1.0
        while True:
            if self.leadership is not None and not await self.leadership.hold():
                self.connected = False
                await asyncio.sleep(self.leadership.retry_s)
                continue
            cap = POLL_MS if self.leadership is None else self.leadership.poll_cap * 1000
            first = self._since is None
            response = await self.client.sync(timeout=0 if first else cap, since=self._since,
                                               full_state=first or None)
            if not isinstance(response, SyncResponse):
                self.connected = False
                wait = getattr(response, "retry_after_ms", None)
                sys.stderr.write(f"hermes: warning: matrix: sync failed: "
                                 f"{getattr(response, 'status_code', '')} "
                                 f"{getattr(response, 'message', response)}; retrying\n")
                await asyncio.sleep(wait / 1000 if wait else backoff)
                backoff = min(backoff * 2, 30.0)
                continue
            backoff, self.connected = 1.0, True
            self._since = response.next_batch
            await self._handle(response, history=first)
            self._keep_since(response.next_batch)

    def _keep_since(self, token: str) -> None:
        """The since token, for the next start (written whole: a crash leaves the old one)."""
        if self.since_file is None:
            return
        try:
            self.since_file.parent.mkdir(parents=True, exist_ok=True)
            part = self.since_file.with_suffix(".part")
            part.write_text(token, encoding="utf-8")
            os.replace(part, self.since_file)
        except OSError as exc:
            sys.stderr.write(f"hermes: warning: matrix: cannot keep the sync token: {exc}\n")
            self.since_file = None

    # -- incoming ----------------------------------------------------------------------
    async def _handle(self, response: SyncResponse, *, history: bool) -> None:
        for room_id, invite in response.rooms.invite.items():
            await self._invited(room_id, [e.source for e in invite.invite_state
                                          if isinstance(getattr(e, "source", None), dict)])
        for room_id, info in response.rooms.join.items():
            room = self.client.rooms.get(room_id)
            members = _members(room)
            if room is not None and room.encrypted and not history:  # not at every restart
                await self._refuse_encrypted(room_id)
            for event in info.timeline.events:
                source = getattr(event, "source", None)
                if history or not isinstance(source, dict):
                    continue
                if source.get("type") == "m.room.encrypted" and source.get("sender") != self.user_id:
                    await self._refuse_encrypted(room_id)
                    continue
                if source.get("type") == "m.reaction":
                    await self._reacted(room_id, source)
                    continue
                msg = inbound(room_id, source, bot=self.user_id, name=self.display_name,
                              members=members, threads=self._threads)
                if msg is not None:
                    await self._deliver(msg)

    async def _deliver(self, msg: MatrixInbound) -> None:
        if self.hub is None:
            return
        if msg.group and not msg.addressed and msg.thread_id != msg.event_id and \
                await stored_thread(self.hub, msg):
            msg = replace(msg, addressed=True)  # answered there before a restart / takeover
        if msg.group and msg.addressed and msg.thread_id is not None:
            if len(self._threads) >= THREADS_KEPT:
                self._threads.clear()
            self._threads.add((msg.chat_id, str(msg.thread_id)))
        try:
            await self.hub.handle(self, msg)
        except MatrixError as exc:  # a refusal or notice that could not be sent
            sys.stderr.write(f"hermes: warning: matrix room {msg.chat_id}: {exc}\n")

    async def _reacted(self, room_id: str, event: dict[str, Any]) -> None:
        """A reaction to an approval question: the sender's answer."""
        content = event.get("content")
        relation = content.get("m.relates_to") if isinstance(content, dict) else None
        if not isinstance(relation, dict) or self.hub is None:
            return
        ident = self._questions.get(str(relation.get("event_id")))
        key = str(relation.get("key") or "")
        sender = str(event.get("sender") or "")
        if ident is None or sender == self.user_id or key not in YES + NO:
            return
        answer = await self.hub.press(self.name, sender, f"{'approve' if key in YES else 'deny'}:{ident}")
        thread = self._threads_of.get(str(relation.get("event_id")))
        with contextlib.suppress(MatrixError):
            await self.write(room_id, message(answer, msgtype="m.notice", thread=thread))

    async def _invited(self, room_id: str, state: list[dict[str, Any]]) -> None:
        inviter = next((str(e.get("sender")) for e in state if e.get("type") == "m.room.member"
                        and e.get("state_key") == self.user_id), "")
        if inviter not in self.allowed_users:
            sys.stderr.write(f"hermes: matrix: ignored an invite to {room_id} from "
                             f"{inviter or 'someone unknown'} (not in gateway.matrix.allowed_users)\n")
            return
        joined = await self.client.join(room_id)
        if getattr(joined, "room_id", None) != room_id:
            sys.stderr.write(f"hermes: warning: matrix: cannot join {room_id}: "
                             f"{getattr(joined, 'message', joined)}\n")
            return
        if any(e.get("type") == "m.room.encryption" for e in state):
            await self._refuse_encrypted(room_id)

    async def _refuse_encrypted(self, room_id: str) -> None:
        if room_id in self._encrypted:
            return
        self._encrypted.add(room_id)
        sys.stderr.write(f"hermes: warning: matrix room {room_id} is end-to-end encrypted: "
                         "not supported yet, its messages are not read\n")
        with contextlib.suppress(MatrixError):
            await self.write(room_id, message(ENCRYPTED, msgtype="m.notice"))

    # -- outgoing ----------------------------------------------------------------------
    async def write(self, room: str, content: dict[str, Any], *,
                    interim: bool = False) -> str | None:
        """Send `content` to `room` through its budget; the event id (None: an interim
        write skipped). M_LIMIT_EXCEEDED holds the room and the same transaction is sent
        again; another refusal is MatrixError."""
        txn = uuid.uuid4().hex
        for _ in range(RETRIES + 1):
            if interim and not self.budget.try_edit(ACCOUNT):
                return None
            if not interim:
                await self.budget.send(ACCOUNT)
            sent = await self.client.room_send(room, "m.room.message", content, tx_id=txn)
            if isinstance(sent, RoomSendResponse):
                return str(sent.event_id)
            if sent.status_code != "M_LIMIT_EXCEEDED":
                raise MatrixError(f"{sent.status_code}: {sent.message}")
            self.rate_limited += 1
            self.budget.hold(ACCOUNT, (sent.retry_after_ms or 5000) / 1000)
            if interim:
                return None
        raise MatrixError("M_LIMIT_EXCEEDED: still rate-limited after retries")

    async def typing(self, room: str) -> None:
        with contextlib.suppress(Exception):
            await self.client.room_typing(room, True, timeout=30_000)

    def reply(self, msg: Inbound) -> MatrixReply:
        assert isinstance(msg, MatrixInbound)
        return MatrixReply(self, msg, self.edit_interval)

    async def notify(self, msg: Inbound, text: str) -> None:
        thread = str(msg.thread_id) if msg.group and msg.thread_id is not None else None
        for piece in parts(text):
            await self.write(msg.chat_id, message(piece, msgtype="m.notice", thread=thread))

    async def deliver(self, chat: str, text: str, thread: str | None = None) -> None:
        """A scheduled job's answer (or a reply kept by the ledger) in room `chat`, in
        `thread` when given (gateway/chat/base.Delivering)."""
        await send_pieces(parts(text), lambda piece: self.write(chat, message(piece, thread=thread)),
                          MatrixError, lambda exc: f"matrix room {chat}: {exc}")

    async def ask(self, msg: Inbound, text: str, ident: str) -> int:
        """An approval question in the asker's thread (answered by a reaction)."""
        thread = str(msg.thread_id) if msg.group and msg.thread_id is not None else None
        *head, last = parts(f"{text}\n\n{ASK_HINT}")
        for piece in head:
            await self.write(msg.chat_id, message(piece, thread=thread))
        event = await self.write(msg.chat_id, message(last, thread=thread))
        assert event is not None
        self._questions[event] = ident
        self._threads_of[event] = thread
        self._handles += 1
        self._asked[self._handles] = event
        return self._handles

    async def settle(self, msg: Inbound, message_id: int, text: str) -> None:
        event = self._asked.pop(message_id, "")
        self._questions.pop(event, None)
        self._threads_of.pop(event, None)
        if event:
            await self.write(msg.chat_id, edit(event, text))

    async def register_commands(self, commands: list[tuple[str, str]]) -> None:
        return None  # Matrix has no command menu: /help lists them

    async def download(self, doc: Document) -> bytes:
        raise MatrixError("files are not taken on Matrix yet")


def _members(room: Any) -> int:
    """The joined members of a nio MatrixRoom (the sync's summary, else its member list)."""
    if room is None:
        return 2
    summary = getattr(room, "summary", None)
    joined = getattr(summary, "joined_member_count", None)
    return int(joined) if joined is not None else int(room.joined_count)
