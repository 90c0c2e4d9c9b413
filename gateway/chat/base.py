"""The platform adapter interface: what a chat platform gives the hub and gets back.

An adapter (gateway/chat/telegram/adapter.py, gateway/chat/console.py; each platform is
a package listed in gateway/chat/platforms.py) does only the platform's I/O:

- it turns the platform's events into `Inbound` messages and hands them to
  `ChatHub.handle` (gateway/chat/hub.py);
- for each message the hub answers it opens a `Reply` (`Adapter.reply`): the typing
  indicator, the partial answer while the turn streams (`update`, throttled by the
  adapter to what the platform accepts) and the final text (`finish`: the adapter
  formats, splits and falls back to plain text as its platform requires);
- `notify` sends one short line (a refusal, a command's answer);
- `download` saves a document the user sent (the hub picks the path: the chat's
  workspace, gateway/chat/files.py).

Everything else - access policy, session keys, the per-chat queue, /stop, commands,
the agent cache, per-session serialisation, stored-session reuse, daily spend - is
shared in the hub and gateway.sessions.Gateway, the same as for the HTTP API.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class Document:
    """A file sent with a message: the platform's id for it, its name and size."""

    file_id: str
    name: str
    size: int | None = None


@dataclass(frozen=True)
class Inbound:
    """One message from a chat platform, in platform-neutral terms."""

    platform: str
    chat_id: str
    user_id: str
    text: str
    chat_type: str = "private"  # private | group | supergroup | channel
    thread_id: int | str | None = None  # forum topic (Telegram message_thread_id), Slack thread ts
    addressed: bool = True  # in a group: the bot was mentioned or replied to
    message_id: int | None = None
    documents: tuple[Document, ...] = field(default=())  # saved into the chat's workspace
    photos: tuple[Document, ...] = field(default=())  # sent to the model with the text

    @property
    def group(self) -> bool:
        return self.chat_type != "private"

    @property
    def reply_thread(self) -> str | None:
        """The thread a reply goes to (None: the chat itself); a platform may say more
        (Slack: a new thread under the message). The ledger keeps a refused reply there."""
        return None if self.thread_id is None else str(self.thread_id)


@dataclass(frozen=True)
class ChatPolicy:
    """Who may talk to the bot on one platform, and how chats map to sessions.

    Deny by default: a message is answered only when its user id is in `allowed_users`
    or its chat id in `allowed_chats`."""

    allowed_users: frozenset[str] = frozenset()
    allowed_chats: frozenset[str] = frozenset()
    mention_only: bool = True  # in groups: answer only when mentioned or replied to
    per_user_in_group: bool = False  # one session per user within a group

    def allows(self, msg: Inbound) -> bool:
        return msg.user_id in self.allowed_users or msg.chat_id in self.allowed_chats


def chat_owner(platform: str, chat_id: str) -> str:
    """The gateway owner id of a chat: SHA-256 hex like an API key's, so the chat is the
    unit of workspace (gateway/workspaces.py), route isolation and daily spend."""
    return hashlib.sha256(f"chat:{platform}:{chat_id}".encode()).hexdigest()


def session_of(msg: Inbound, policy: ChatPolicy) -> tuple[str, str]:
    """(owner, session name) of a message: one session per private chat, per group (or
    per user within a group, by config), per forum topic."""
    parts = [msg.platform, msg.chat_id]
    if msg.thread_id is not None:
        parts.append(f"topic:{msg.thread_id}")
    if msg.group and policy.per_user_in_group:
        parts.append(f"user:{msg.user_id}")
    return chat_owner(msg.platform, msg.chat_id), "/".join(parts)


class Reply(Protocol):
    """The rendering of one answer on the platform."""

    async def typing(self) -> None: ...

    async def update(self, text: str) -> None:
        """The answer so far (the adapter may skip updates to respect rate limits)."""

    async def finish(self, text: str) -> None:
        """The final answer (formatted, split and sent whole)."""


class Hub(Protocol):
    """Where an adapter delivers (gateway.chat.hub.ChatHub)."""

    async def handle(self, adapter: Adapter, msg: Inbound) -> None:
        """One message (returns at once; the answer follows through `adapter`)."""

    async def press(self, platform: str, user_id: str, data: str) -> str:
        """A button pressed; the short text shown to the presser."""

    async def first_delivery(self, platform: str, message_id: str) -> bool:
        """False when the message id was taken before (a retried webhook, on any worker)."""


class Adapter(Protocol):
    """One chat platform. `start` begins delivering messages to the hub; `stop` ends."""

    name: str
    connected: bool

    async def start(self, hub: Hub) -> None: ...

    async def stop(self) -> None: ...

    def reply(self, msg: Inbound) -> Reply: ...

    async def notify(self, msg: Inbound, text: str) -> None: ...

    async def register_commands(self, commands: list[tuple[str, str]]) -> None: ...

    async def download(self, doc: Document) -> bytes:
        """The bytes of a file the user sent (gateway/chat/files.py saves them)."""


class Undelivered(Exception):
    """A message the platform refused or could not take (`Delivering.deliver`). `rest`:
    the part it did not take when it took some pieces first (gateway/chat/kit/pieces.py);
    None: none of it went."""

    def __init__(self, message: str = "", rest: str | None = None) -> None:
        super().__init__(message)
        self.rest = rest


class Delivering(Protocol):
    """An adapter that can post a message nobody asked for (a scheduled job's answer)."""

    name: str

    async def deliver(self, chat: str, text: str, thread: str | None = None) -> None:
        """`text` to `chat` (the platform's chat id; in `thread` when given: a forum
        topic, a Slack thread), split within the platform's limits, each piece through
        the chat's budget; Undelivered when the platform refuses."""


@runtime_checkable
class Asking(Protocol):
    """An adapter that can ask a question with buttons (tool approvals: Telegram)."""

    async def ask(self, msg: Inbound, text: str, ident: str) -> int:
        """Send the question; its message id."""

    async def settle(self, msg: Inbound, message_id: int, text: str) -> None:
        """The question answered: its text replaced (the buttons go)."""
