"""The ACP methods hermes answers (the SDK routes JSON-RPC to them, hermes_acp/server.py).

initialize, session/new, session/load (history replayed first), session/resume,
session/list, session/close, session/set_mode (`default`, `plan`), session/prompt,
session/cancel.
One cached agent per ACP session (the ACP session id is the stored session's id when it
was opened; /new and compression continue under it, as a gateway route follows them).
Work that touches the store, the disk or the provider runs in a worker thread: the event
loop only moves messages, so a cancel or a permission answer is always read.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp import schema as s
from acp.helpers import update_agent_message_text, update_agent_thought_text

from agent.errors import HermesError
from agent.permissions.plan import PLAN
from frontend.setup import Flags
from hermes_acp import history, opening, prompts, updates
from hermes_acp.client_io import Channel, EditorApprovals
from hermes_acp.session import AcpSession
from memory.errors import HermesMemoryError

if TYPE_CHECKING:
    from acp.interfaces import Client

    from agent.cache.keeper import CacheKeeper
    from agent.images import Image
    from frontend.config.settings import Settings
    from hermes_acp.opening import McpServers
    from hermes_acp.prompts import Block
    from memory.store import SessionStore

MODES = (("default", "", "Default", "Tools change files after the usual checks and approvals"),
         ("plan", PLAN, "Plan", "Read and plan only: tools that change things refuse"))
PAGE = 50  # sessions per session/list page


def personality_table(settings: Settings | None) -> dict[str, str]:
    """The personalities /personality offers (built-in and config.yaml's)."""
    from frontend.personalities import available

    table = settings.get("personalities", {}, kind=dict) if settings is not None else {}
    return available({k: v for k, v in table.items() if isinstance(v, str) and v.strip()})


def failure(problem: object) -> RequestError:
    """A hermes error (or a turn's ErrorEvent) as one JSON-RPC error: the message, the
    hint in `data`."""
    hint = getattr(problem, "hint", "")
    return RequestError(-32000, getattr(problem, "message", str(problem)),
                        {"hint": hint} if hint else None)


class HermesAcp:
    """The Agent side of the protocol (duck-typed against acp.interfaces.Agent)."""

    conn: Client  # the editor (`on_connect`, before the first request)

    def __init__(self, settings: Settings | None, flags: Flags,
                 problem: HermesError | HermesMemoryError | None = None) -> None:
        self.settings, self.flags, self.problem = settings, flags, problem
        self.caps: s.ClientCapabilities | None = None
        self.store: SessionStore | None = None
        self.sessions: dict[str, AcpSession] = {}
        self.keeper: CacheKeeper | None = None  # made with the first session
        self.personalities = personality_table(settings)
        self._setup = threading.Lock()  # the store and the keeper are made once
        self._pending: set[asyncio.Task[None]] = set()  # announcements in flight (held: not collected)

    def on_connect(self, conn: Client) -> None:
        self.conn = conn

    # -- set-up ---------------------------------------------------------------------------
    async def initialize(self, protocol_version: int,
                         client_capabilities: s.ClientCapabilities | None = None,
                         client_info: s.Implementation | None = None, **_: object) -> s.InitializeResponse:
        from importlib.metadata import version

        self.caps = client_capabilities
        return s.InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=s.AgentCapabilities(
                load_session=True,
                prompt_capabilities=s.PromptCapabilities(embedded_context=True, image=True),
                mcp_capabilities=s.McpCapabilities(http=True),
                session_capabilities=s.SessionCapabilities(
                    list=s.SessionListCapabilities(), resume=s.SessionResumeCapabilities(),
                    close=s.SessionCloseCapabilities())),
            agent_info=s.Implementation(name="hermes", title="hermes", version=version("hermes-agent-cli")),
            auth_methods=[])

    async def authenticate(self, method_id: str, **_: object) -> s.AuthenticateResponse:
        return s.AuthenticateResponse()  # keys come from hermes' own settings (.env)

    def _open(self, cwd: str, servers: McpServers | None, session_id: str | None) -> AcpSession:
        """Build (or resume) a session's agent; runs in a worker thread."""
        settings = self._settings()
        path = opening.checked_cwd(cwd)
        store = self._store()
        held = None
        if session_id is not None:
            session_id = store.resolve_session_id(session_id)
            held = opening.hold(store, session_id)
        try:
            channel = Channel(session_id or "")
            agent = opening.open_agent(settings, self.flags, store, path,
                                       servers=servers, session_id=session_id,
                                       approve=EditorApprovals(channel))
        except BaseException:
            if held is not None:
                held.release()
            raise
        channel.session_id = agent.session_id
        if held is None:
            held = opening.hold(store, agent.session_id)
        # files: hermes reads and writes them itself, through safefs (hermes_acp/client_io.py)
        with self._setup:
            if self.keeper is None:  # the first session (start-up: initialize answers first)
                from agent.cache.keeper import CacheKeeper

                self.keeper = CacheKeeper(autostart=True)
        return AcpSession(agent.session_id, agent, channel, self.keeper, held=held)

    async def _opened(self, cwd: str, servers: McpServers | None, session_id: str | None) -> AcpSession:
        if session_id is not None and session_id in self.sessions:
            return self.sessions[session_id]
        try:
            session = await asyncio.to_thread(self._open, cwd, servers, session_id)
        except (HermesError, HermesMemoryError) as exc:
            raise failure(exc) from None
        self.sessions[session.acp_id] = session
        return session

    def _modes(self, session: AcpSession) -> s.SessionModeState:
        current = session.agent.session.choices.mode
        return s.SessionModeState(
            current_mode_id=next((mid for mid, value, *_ in MODES if value == current), "default"),
            available_modes=[s.SessionMode(id=mid, name=name, description=text)
                             for mid, _v, name, text in MODES])

    def _announce(self, session: AcpSession) -> None:
        """After the response: the commands the editor may offer, start-up notices."""
        async def send() -> None:
            await self.conn.session_update(session_id=session.acp_id,
                                           update=prompts.available_commands())
            notices, session.agent.startup_notices[:] = list(session.agent.startup_notices), []
            for notice in notices:
                if notice.text.strip():
                    await self.conn.session_update(
                        session_id=session.acp_id,
                        update=update_agent_thought_text(f"[hermes] {notice.text.strip()}\n"))

        task = asyncio.get_running_loop().create_task(send())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    # -- sessions -------------------------------------------------------------------------
    async def new_session(self, cwd: str, mcp_servers: McpServers | None = None, **_: object) -> s.NewSessionResponse:
        session = await self._opened(cwd, mcp_servers, None)
        self._announce(session)
        return s.NewSessionResponse(session_id=session.acp_id, modes=self._modes(session))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: McpServers | None = None,
                           **_: object) -> s.LoadSessionResponse:
        session = await self._opened(cwd, mcp_servers, session_id)
        for update in history.replayed(session.agent.conversation.messages, session.cwd):
            await self.conn.session_update(session_id=session.acp_id,
                                           update=prompts.update_model(update))
        self._announce(session)
        return s.LoadSessionResponse(modes=self._modes(session))

    async def resume_session(self, cwd: str, session_id: str, mcp_servers: McpServers | None = None,
                             **_: object) -> s.ResumeSessionResponse:
        session = await self._opened(cwd, mcp_servers, session_id)
        self._announce(session)
        return s.ResumeSessionResponse(modes=self._modes(session))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **_: object) -> s.ListSessionsResponse:
        if self.problem is not None:
            raise failure(self.problem)
        start = int(cursor) if cursor and cursor.isdigit() else 0
        rows = await asyncio.to_thread(self._rows, cwd, start + PAGE + 1)
        page = rows[start:start + PAGE]
        return s.ListSessionsResponse(
            sessions=[s.SessionInfo(session_id=r["id"], cwd=r.get("cwd") or "",
                                    title=r.get("title") or r.get("preview") or None,
                                    updated_at=r.get("updated")) for r in page],
            next_cursor=str(start + PAGE) if len(rows) > start + PAGE else None)

    def _settings(self) -> Settings:
        """The settings; raises what kept them from being read (hermes_acp/server.py)."""
        if self.problem is not None:
            raise self.problem
        assert self.settings is not None  # read when there is no problem
        return self.settings

    def _store(self) -> SessionStore:
        """The session store, opened by the first call that needs it (any worker thread)."""
        with self._setup:
            if self.store is None:
                from frontend.setup import open_store

                self.store = open_store(self._settings())
            return self.store

    def _rows(self, cwd: str | None, limit: int) -> list[dict[str, Any]]:
        rows = self._store().list_sessions(limit=limit * 4 + 50)
        mine = [r for r in rows if r.get("owner") is None and r.get("source") in prompts.LISTED
                and (cwd is None or r.get("cwd") == cwd)]
        return mine[:limit]

    def _session(self, session_id: str) -> AcpSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": session_id,
                                               "reason": "no such session in this process: "
                                               "session/load or session/resume it first"})
        return session

    async def set_session_mode(self, mode_id: str, session_id: str, **_: object) -> s.SetSessionModeResponse:
        session = self._session(session_id)
        value = next((v for mid, v, *_ in MODES if mid == mode_id), None)
        if value is None:
            raise RequestError.invalid_params({"modeId": mode_id, "known": [m[0] for m in MODES]})
        async with session.lock:  # never in the middle of a turn
            if session.agent.session.choices.mode != value:
                await asyncio.to_thread(session.agent.set_mode, value)
        return s.SetSessionModeResponse()

    async def close_session(self, session_id: str, **_: object) -> s.CloseSessionResponse:
        """Stop the session's turn, release its agent and its lock (it stays stored)."""
        session = self.sessions.pop(session_id, None)
        if session is not None:
            session.cancel_turn()
            async with session.lock:  # the turn's thread has ended
                await asyncio.to_thread(session.close)
        return s.CloseSessionResponse()

    async def cancel(self, session_id: str, **_: object) -> None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.cancel_turn()

    # -- prompts --------------------------------------------------------------------------
    async def prompt(self, prompt: list[Block], session_id: str, **_: object) -> s.PromptResponse:
        session = self._session(session_id)
        try:  # files and images it names are read and scaled (a thread); plain text needs none
            text, images = (await asyncio.to_thread(self._message, session, prompt)
                            if prompts.reads_files(prompt) else self._message(session, prompt))
        except HermesError as exc:
            raise failure(exc) from None
        if not text.strip():
            raise RequestError.invalid_params({"prompt": "empty: no text to send"})
        async with session.lock:
            reply = await prompts.command(session, text, self.personalities)
            if reply is not None:
                if reply.text:
                    await self.conn.session_update(session_id=session.acp_id,
                                                   update=update_agent_message_text(reply.text))
                if reply.changed != "retry" or not reply.data:
                    await asyncio.to_thread(self._follow, session)  # /new
                    await self._titled(session)  # /title
                    return s.PromptResponse(stop_reason="end_turn")
                text = reply.data
            turn = await session.run(self.conn, text, images)
            await asyncio.to_thread(self._follow, session)  # compression's child
        outcome = turn.outcome
        if session.title is None:  # the first message names the session
            await self._titled(session)
        for warning in outcome.warnings:
            await self.conn.session_update(session_id=session.acp_id, update=update_agent_thought_text(
                f"[hermes] {warning.message} {warning.hint}".strip() + "\n"))
        if turn.context is not None:  # the context used and the session's cost so far
            used, size = turn.context
            budget = session.agent.budget
            await self.conn.session_update(session_id=session.acp_id, update=s.UsageUpdate(
                session_update="usage_update", used=min(used, size), size=size,
                cost=None if budget.unpriced else s.Cost(amount=round(budget.spent_usd, 6),
                                                         currency="USD")))
        if outcome.failed:
            raise failure(outcome.error)
        return s.PromptResponse.model_validate({"stop_reason": updates.stop_reason(outcome.reason),
                                                "usage": updates.usage(outcome.usage)})

    @staticmethod
    def _message(session: AcpSession, prompt: list[Block]) -> tuple[str, tuple[Image, ...]]:
        """The prompt's text and its pictures, as the session's model takes them."""
        text, pictures = prompts.message_of(prompt, session.cwd, session.agent.config.permissions)
        return text, tuple(session.agent.attach_image(data, name).image for name, data in pictures)

    def _follow(self, session: AcpSession) -> None:
        """Hold the stored session the agent went on in (/new, compression's child), so
        no other hermes drives it meanwhile; the one before is released."""
        held, current = session.held, session.agent.session_id
        if held is None or held.session_id == current:
            return
        try:
            session.held = opening.hold(self._store(), current)
        except HermesMemoryError:
            return  # someone holds it already: keep what we have
        held.release()

    async def _titled(self, session: AcpSession) -> None:
        """The session's title (set by its first message, or /title) when it changed."""
        sid = session.agent.session_id
        row = await asyncio.to_thread(lambda: self._store().get_session(sid)) or {}
        title = row.get("title")
        if title and title != session.title:
            session.title = title
            await self.conn.session_update(session_id=session.acp_id, update=s.SessionInfoUpdate(
                session_update="session_info_update", title=title, updated_at=row.get("updated")))

    async def close(self) -> None:
        """The connection ended: stop turns, release agents and locks."""
        for session in list(self.sessions.values()):
            await asyncio.to_thread(session.close)
        self.sessions.clear()
        if self.keeper is not None:
            self.keeper.stop()
        if self.store is not None:
            self.store.close()
