"""Approvals from a chat: a dangerous action a tool wants (agent/tools/danger.py) is put
to the chat's owner as a message with two buttons (Telegram: an inline keyboard);
the turn's worker thread waits for the answer, at most WAIT seconds (then: refused).

- Only the user whose message started the turn may answer, and only while in the
  platform's `allowed_users` (a member of an allowed chat may talk to the bot but not
  approve; another allowed user in a group may not answer someone else's question):
  one rule, here, for Telegram, Slack and Discord; other presses are told so.
- The question shows the command and the reason whole, control characters written as
  visible escapes (`frontend.visible`): what the user approves is what runs. Each
  adapter's `ask` shows all of the text (several messages when it is long).
- An approval is for that one call and never widens the sandbox: a request to run
  outside the sandbox or to write outside the writable directories is refused here
  without asking (only a person at the REPL may grant those).
- /stop refuses the chat's pending questions at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import TYPE_CHECKING

from frontend.visible import visible
from gateway.chat.base import Adapter, Asking, ChatPolicy, Inbound

if TYPE_CHECKING:
    from agent.config import AgentConfig

WAIT = 120.0  # seconds a question waits for a press
WIDENING = ("OUTSIDE the sandbox", "outside the writable directories")
NOT_YOURS = "Only the person who asked can answer this."
NOT_ALLOWED = "Only the bot's owner can answer this."
CLOSED = "This question is closed."
SETTLED_SHOWN = 200  # characters of the command repeated in the settled question


@dataclass
class _Question:
    owner: str
    asker: str  # the user whose message started the turn: the only one who may answer
    future: asyncio.Future[bool]


class Approvals:
    """Pending questions of every chat; `approver_for` is the Gateway's hook."""

    def __init__(self, policies: dict[str, ChatPolicy], wait: float = WAIT) -> None:
        self.policies = policies
        self.wait = wait
        self.loop: asyncio.AbstractEventLoop | None = None
        self.running: dict[str, tuple[Adapter, Inbound]] = {}  # owner -> the turn's chat
        self.owners: set[str] = set()  # chat owners (the HTTP API's keys are not)
        self._pending: dict[str, _Question] = {}

    def approver_for(self, config: AgentConfig) -> Callable[[str, str], bool] | None:
        """The approve callback of an agent built for a chat owner (None otherwise:
        sessions of the HTTP API keep refusing dangerous actions)."""
        owner = config.owner
        if owner not in self.owners or self.loop is None:
            return None
        return lambda command, reason: self.ask(owner, command, reason)

    def ask(self, owner: str, command: str, reason: str) -> bool:
        """Called in the turn's worker thread: True only when an allowed user approved."""
        if any(word in reason for word in WIDENING) or self.loop is None:
            return False
        future = asyncio.run_coroutine_threadsafe(self._ask(owner, command, reason), self.loop)
        try:
            return future.result(self.wait + 10)
        except (FutureTimeout, Exception):  # noqa: BLE001 - no answer is a refusal
            return False

    async def _ask(self, owner: str, command: str, reason: str) -> bool:
        chat = self.running.get(owner)
        if chat is None or not isinstance(chat[0], Asking):
            return False
        adapter, msg = chat[0], chat[1]
        ident = secrets.token_hex(6)
        question = _Question(owner, msg.user_id, asyncio.get_running_loop().create_future())
        self._pending[ident] = question
        shown = visible(command)
        handle = await adapter.ask(msg, question_text(command, reason), ident)
        try:
            approved = await asyncio.wait_for(question.future, self.wait)
        except TimeoutError:
            approved = None
        finally:
            self._pending.pop(ident, None)
        word = {True: "Approved once", False: "Refused", None: "No answer: refused"}[approved]
        with contextlib.suppress(Exception):
            cut = shown if len(shown) <= SETTLED_SHOWN else shown[:SETTLED_SHOWN] + " …"
            await adapter.settle(msg, handle, f"{word}: {cut}")
        return bool(approved)

    def answer(self, platform: str, user_id: str, data: str) -> str:
        """A button press ("approve:<id>" / "deny:<id>"); the text shown to the presser."""
        verb, _, ident = data.partition(":")
        question = self._pending.get(ident)
        if question is None or question.future.done():
            return CLOSED
        if user_id not in self.policies.get(platform, ChatPolicy()).allowed_users:
            return NOT_ALLOWED
        if user_id != question.asker:
            return NOT_YOURS
        question.future.set_result(verb == "approve")
        return "Approved once." if verb == "approve" else "Refused."

    def refuse_all(self, owner: str) -> None:
        """/stop: every pending question of the chat is answered "no"."""
        for question in list(self._pending.values()):
            if question.owner == owner and not question.future.done():
                question.future.set_result(False)


def question_text(command: str, reason: str) -> str:
    """The approval question: the command and the reason whole, made visible."""
    return f"Allow this once?\n{visible(command)}\n(why asked: {visible(reason)})"
