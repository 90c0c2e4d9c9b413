"""One ACP session: one cached agent, its turns, and what the editor answers.

A turn runs `AIAgent.run_turn` in a worker thread (the SDK calls block); its events and
its questions to the editor (`client_io.Ask`) come back in order through
`frontend.bridge.EventBridge` and are sent here, on the event loop, as session updates.
The turn is judged by `frontend.outcome.TurnOutcome`, as in every front end: it fails
only when it ends in error, and then the prompt request answers with a JSON-RPC error.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agent.cancel import CancelToken
from agent.errors import HermesError
from agent.events import (
    Done,
    ErrorEvent,
    Notice,
    SubagentProgress,
    TextDelta,
    ThinkingDelta,
    TodoChanged,
    ToolFinished,
    ToolStarted,
    UsageEvent,
)
from frontend.bridge import END, EventBridge
from frontend.outcome import TextFold, TurnOutcome
from hermes_acp import updates
from hermes_acp.client_io import Ask, Channel
from memory.errors import HermesMemoryError

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent.agent import AIAgent
    from agent.cache.keeper import CacheKeeper
    from memory.locks import SessionLock


@dataclass
class Turn:
    """What a finished turn tells the prompt request."""

    outcome: TurnOutcome
    context: tuple[int, int] | None = None  # (tokens used, window) after the turn


@dataclass
class AcpSession:
    """The agent of one ACP session and the state of its turns."""

    acp_id: str
    agent: AIAgent
    channel: Channel
    keeper: CacheKeeper | None = None  # shared by the process
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    cancel: CancelToken | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    held: SessionLock | None = None  # the stored session's lock (one driver at a time)
    title: str | None = None  # the title the editor was last told

    @property
    def cwd(self) -> Path:
        return Path(self.agent.config.cwd)

    def cancel_turn(self) -> None:
        if self.cancel is not None:
            self.cancel.cancel()
        self.stop.set()

    # -- the worker thread ---------------------------------------------------------------
    def _work(self, text: str, cancel: CancelToken, sink: Callable[[object], None]) -> None:
        self.channel.sink = sink
        try:
            for event in self.agent.run_turn(text, cancel):
                if isinstance(event, ToolStarted):
                    self.channel.tool_call = (event.call_id, event.name)
                elif isinstance(event, ToolFinished):
                    self.channel.tool_call = None
                sink(event)
        except (HermesError, HermesMemoryError) as exc:
            sink(ErrorEvent(exc.message, getattr(exc, "hint", "")))
            sink(Done("", "error"))
        except Exception as exc:  # noqa: BLE001 - one line to the editor, never a traceback
            sink(ErrorEvent(f"internal error: {type(exc).__name__}: {exc}",
                            "please report this; the session is kept"))
            sink(Done("", "error"))
        finally:
            self.channel.sink = None
            self.channel.tool_call = None

    # -- the event loop ------------------------------------------------------------------
    async def run(self, conn: Client, text: str) -> Turn:
        """Run one message to its end, sending its updates to the editor."""
        cancel = CancelToken()
        self.cancel = cancel
        self.stop = asyncio.Event()
        if self.keeper is not None:
            self.keeper.turn_started(self.acp_id, self.agent.caller)
        bridge = EventBridge()
        task = bridge.start(asyncio.to_thread(self._work, text, cancel, bridge.sink))
        outcome, fold = TurnOutcome(), TextFold()
        paths: dict[str, str | None] = {}  # tool call id -> the file it names
        try:
            while True:
                items = await bridge.batch()
                for item in items:
                    if item is END:
                        break
                    if isinstance(item, Ask):
                        await self._answer(conn, item)
                        continue
                    outcome.feed(item)
                    await self._send(conn, item, fold, paths)
                else:
                    continue
                break
        except asyncio.CancelledError:  # the connection went away: stop the turn
            self.channel.open = False
            cancel.cancel()
            raise
        finally:
            self._drain(bridge)
            if self.keeper is not None:
                self.keeper.turn_ended(self.acp_id)
            with contextlib.suppress(Exception):
                await asyncio.shield(task)
        return Turn(outcome, self.context())

    def _drain(self, bridge: EventBridge) -> None:
        """Questions left unanswered (a turn torn down) are refused, so no thread waits."""
        while not bridge.queue.empty():
            item = bridge.queue.get_nowait()
            if isinstance(item, Ask) and not item.future.done():
                item.future.set_result(None)

    async def _answer(self, conn: Client, ask: Ask[object]) -> None:
        """Send one question to the editor; a cancelled turn answers a cancellable one."""
        try:
            request = asyncio.ensure_future(ask.send(conn))
            if ask.cancellable:
                stopped = asyncio.ensure_future(self.stop.wait())
                await asyncio.wait({request, stopped}, return_when=asyncio.FIRST_COMPLETED)
                stopped.cancel()
                if not request.done():
                    request.cancel()
                    ask.future.set_result(None)
                    return
            ask.future.set_result(await request)
        except Exception as exc:  # noqa: BLE001 - the editor's error goes to the tool
            if not ask.future.done():
                ask.future.set_exception(exc)

    async def _send(self, conn: Client, event: object, fold: TextFold,
                    paths: dict[str, str | None]) -> None:
        from acp import schema  # lazy: the SDK (start-up speed of the other commands)
        from acp.helpers import update_agent_message_text, update_agent_thought_text

        update: (schema.AgentMessageChunk | schema.AgentThoughtChunk | schema.ToolCallStart
                 | schema.ToolCallProgress | schema.AgentPlanUpdate | None) = None
        if isinstance(event, TextDelta):
            text = fold.feed(event)
            update = update_agent_message_text(text) if text else None
        elif isinstance(event, ThinkingDelta):
            update = update_agent_thought_text(event.text) if event.text else None
        elif isinstance(event, ToolStarted):
            fold.feed(event)
            fields = updates.started(event, self.cwd)
            paths[event.call_id] = (fields["locations"] or [{}])[0].get("path")
            update = schema.ToolCallStart.model_validate({**fields, "session_update": "tool_call"})
        elif isinstance(event, ToolFinished):
            fields = updates.finished(event, paths.get(event.call_id))
            update = schema.ToolCallProgress.model_validate(
                {**fields, "session_update": "tool_call_update"})
        elif isinstance(event, TodoChanged):
            update = schema.AgentPlanUpdate(session_update="plan", entries=[
                schema.PlanEntry.model_validate(entry) for entry in updates.plan(event.items)])
        elif isinstance(event, Notice) and event.text.strip():
            update = update_agent_thought_text(f"[hermes] {event.text.strip()}\n")
        elif isinstance(event, SubagentProgress):
            update = update_agent_thought_text(f"[sub-agent: {event.goal[:60]}] {event.what}\n")
        elif isinstance(event, ErrorEvent | UsageEvent | Done):
            return  # judged at the end (TurnOutcome); warnings are said then
        if update is not None:
            await conn.session_update(session_id=self.acp_id, update=update)

    def context(self) -> tuple[int, int] | None:
        """(tokens of the last prompt, the model's context window), when known."""
        from frontend.usage_report import window_for

        used = self.agent.session.calls.context_tokens()
        size = window_for(self.agent.model, self.agent.config.context_windows.get(self.agent.model))
        return (used, size) if used and size else None

    def close(self) -> None:
        self.channel.open = False
        self.cancel_turn()
        with contextlib.suppress(Exception):
            self.agent.close()
        if self.held is not None:
            with contextlib.suppress(Exception):
                self.held.release()
            self.held = None
