"""AIAgent: one long-lived runtime per session.

Frozen for the session: stable system prompt, ephemeral layer and the session's choices
(agent.sessions.choices: model, provider, personality, reasoning, tool schemas), all held by the
Session. Per turn: the cancellation token and the event consumer. Deliberate cache
breaks (/model, /personality, /new, /undo) are methods that return a Notice saying what
the break costs; nothing else ever rebuilds the prompt.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace

from agent import seams
from agent.cache.child_warm import ChildWarm
from agent.cache.pauses import session_pauses
from agent.cancel import CancelToken
from agent.checkpoints import CheckpointStore, for_session
from agent.compression.compactor import Compactor
from agent.compression.trigger import Host, compressing_turn
from agent.config import AgentConfig
from agent.cost import pricing
from agent.cost.budget import REFUSAL_HINT, Budget
from agent.errors import ConfigError
from agent.events import Done, ErrorEvent, Event, Notice, UsageEvent
from agent.hooks.confine import HookBox
from agent.hooks.events import SessionHooks
from agent.hooks.runner import Environment
from agent.images import Image
from agent.loop import Turn
from agent.mcp import hooks as mcp_hooks
from agent.mcp.frozen import McpTools
from agent.messages import Message
from agent.modelcall.break_cost import rebuild_estimate
from agent.modelcall.calls import ModelCaller
from agent.modelcall.ledger import Billed
from agent.observe import Observer, TurnInfo, watched
from agent.permissions import plan
from agent.permissions.enforce import enforced
from agent.prompts.recall import recall_suffix
from agent.providers import make_provider
from agent.providers.base import Provider, ProviderSettings, Services
from agent.providers.clients import Clients
from agent.providers.image_scale import BLIND_HINT, Prepared, blind, image_for
from agent.providers.registry import profile_for
from agent.session_edits import SessionEdits
from agent.sessions.call_state import CallState
from agent.sessions.choices import Choices
from agent.sessions.conversation import Conversation
from agent.sessions.session import Session, SessionFactory, new_session_id
from agent.subagent import Borrowed, child_registry
from agent.tools.file_port import FilePort
from agent.tools.registry import ToolContext, ToolRegistry, ToolServices, discover
from agent.tools.skill_manage import shelf_for
from agent.tools.terminal import release_processes
from agent.tools.toolsets import DEFAULT_TOOLSETS
from agent.usage import CHARGE_KIND
from memory.notes import Notes
from memory.store import SessionStore
from memory.threats import scan as scan_text
from skills.loader import SkillCatalog
from skills.loader import discover as discover_skills
from skills.manage import Shelf

__all__ = ["AIAgent", "build_registry", "new_session_id"]

CHILD_ITERATIONS = 50  # a sub-agent's tool iterations
#: runs inside a turn before its message is sent; returns the message text (run_turn)
Prelude = Callable[[str], Generator[Event, None, str]]


def build_registry(toolsets: tuple[str, ...] | None, exclude: tuple[str, ...] = ()) -> ToolRegistry:
    """The session's tools: the named toolsets (default set when None)."""
    every = ToolRegistry(discover())
    known = set(every.toolsets())
    wanted = tuple(t for t in DEFAULT_TOOLSETS if t in known) if toolsets is None else toolsets
    unknown = sorted(set(wanted) - known)
    if unknown:
        raise ConfigError(
            f"unknown toolset(s): {', '.join(unknown)}",
            f"available toolsets: {', '.join(sorted(known))}",
        )
    return every.subset(wanted, exclude=exclude)


def _registry(config: AgentConfig) -> ToolRegistry:
    """The configured toolsets, without what the installation does not offer."""
    return build_registry(config.toolsets, exclude=(
        *(() if config.skill_writes else ("skill_manage",)), *config.web.unoffered()))


def _hooks(config: AgentConfig, *, subagent: bool) -> SessionHooks | None:
    """The session's lifecycle hooks (None: none configured)."""
    if not config.hooks:
        return None
    return SessionHooks(config.hooks, Environment(config.cwd, config.sandbox.env_allow),
                        subagent=subagent, place=HookBox(config.sandbox, config.home, config.cwd))


def _shelf(config: AgentConfig) -> Shelf | None:
    """Where skill_manage writes (None: it does not)."""
    return shelf_for(config.home, config.owner, config.skill_writes)


def _session_factory(config: AgentConfig, store: SessionStore | None, registry: ToolRegistry,
                     clock: Callable[[], float]) -> SessionFactory:
    """The factory of this agent's sessions: a gateway tenant's own notes, never the
    operator's (memory/tenants.py), and its own skills indexed after the shared ones."""
    shelf = _shelf(config)
    tenant = shelf.root if shelf and shelf.source == "tenant" else None
    return SessionFactory(
        config, store, notes=Notes.for_owner(config.home, config.owner),
        skills=lambda: discover_skills(config.home, scan=scan_text, tenant=tenant),
        toolsets=tuple(registry.toolsets()),
        writes_skills=registry.get("skill_manage") is not None, clock=clock,
        # MCP tools join later (first request), framed too
        framed=registry.frames_results() or bool(config.mcp_servers))


def _first_session(sessions: SessionFactory, config: AgentConfig, registry: ToolRegistry,
                   session_id: str | None, parent: Session | None) -> Session:
    """A sub-agent's (the parent's stable bytes: agent.subagent), a resumed or a new one."""
    if parent is not None:
        return sessions.sub_agent(parent, config.ephemeral_extra)
    choices = Choices.defaults(config, tuple(registry.schemas()))
    return sessions.start(choices) if session_id is None else sessions.resume(session_id, choices)


class AIAgent(SessionEdits):
    """One session's agent. Create with a config and a store; `run_turn` per message.

    The session's state lives in `self.session` (agent.sessions.session.Session); the agent
    holds the collaborators (provider, store, tools, skills, notes) and the strategy
    objects built once: the SessionFactory (the only code that makes or changes a
    session's prompt), the ModelCaller and the Compactor, which read the current
    session by reference."""

    def __init__(self, config: AgentConfig, store: SessionStore | None, *,  # noqa: PLR0913
                 session_id: str | None = None,
                 approve: Callable[[str, str], bool] | None = None,
                 clock: Callable[[], float] = time.time, provider: Provider | None = None,
                 lend: Callable[[ProviderSettings], Provider] | None = None,
                 registry: ToolRegistry | None = None, budget: Budget | None = None,
                 parent: Session | None = None, mcp: McpTools | None = None) -> None:
        """A new session (`session_id` None), a stored one resumed (its stored choices;
        `config`'s model and provider win), or a `parent`'s sub-agent (its choices, its
        `budget`, its SDK client as `provider`); the gateway lends clients (`lend`)."""
        self.config, self.store, self.busy, self._subagent = config, store, False, bool(parent)
        self.observers: tuple[Observer, ...] = ()  # this agent's own (agent/observe.py)
        self._hooked: str | None = None  # the session SessionStart last fired for
        self.hooks = _hooks(config, subagent=parent is not None)
        self.approve = approve if self.hooks is None or approve is None or parent else \
            seams.notifying(self.hooks, lambda: self.session.id,
                            lambda: self.session.tools.pending_events, approve)  # Notification
        self.registry = self.base_registry = registry or _registry(config)
        self.mcp = mcp  # MCP tools join the registry at its freeze
        self.clients = Clients(lend or make_provider, provider, Services(
            store, session_pauses(store), lambda model: pricing.prices(model, config.prices)))
        self.sessions = _session_factory(config, store, self.registry, clock)
        self.startup_notices: list[Notice] = self.sessions.notices
        self.startup_notices.extend(Notice(w, "warning") for w in self.skills.warnings)
        self.budget = budget or Budget(config.budget)
        self.caller = ModelCaller(config, lambda: self.provider, store, lambda: self.session,
                                  clock, self.budget)
        self.child_warm = ChildWarm()  # sub-agents starting together read one warm prefix
        self.compactor = Compactor(config, lambda: self.provider, store, self.sessions,
                                   self.budget, shape=self.caller.build_request,
                                   pre_compact=seams.pre_compact(self.hooks) if self.hooks else None)
        if session_id is not None:  # its frozen MCP tools first: resume compares the set
            mcp_hooks.restore(self, session_id)
        self.session = _first_session(self.sessions, config, self.registry, session_id, parent)
        self.checkpoints: CheckpointStore | None = None  # files written, for /undo and /diff
        self.files: FilePort | None = None  # a front end's files (None: the disk)
        self.tool_ctx = self._tool_context()
        warning = None if parent else self.caller.ledger.resume(
            self.session_id, self.model, config.budget.session_usd)
        self.startup_notices.extend(Notice(w, "warning") for w in (warning,) if w)

    # ---- the current session (read-only views; the Session owns the state) ----------
    @property
    def session_id(self) -> str:
        return self.session.id

    @property
    def model(self) -> str:
        return self.session.model

    @property
    def provider_name(self) -> str:
        return self.session.provider

    @property
    def stable(self) -> str:
        return self.session.stable

    @property
    def ephemeral(self) -> str:
        return self.session.ephemeral

    @property
    def conversation(self) -> Conversation:
        return self.session.conversation

    @property
    def skills(self) -> SkillCatalog:
        """The skills the current session's index was built from (re-read for every new
        session: /new, compaction's child)."""
        return self.sessions.skills

    @property
    def state(self) -> CallState:
        """The session's CallState (cache bookkeeping)."""
        return self.session.calls

    def adopt(self, session: Session) -> None:
        """Continue in `session` (compression's child): tools bound to it."""
        if session.id != self.session.id:
            settle(self, successor=session.id)
        self.session = session
        self._hooked = session.id  # the same conversation goes on: no SessionStart
        self.tool_ctx = self._tool_context()
        mcp_hooks.persist(self)  # compression's child keeps the frozen MCP schemas

    def rebuild_estimate(self, model: str | None = None) -> tuple[int, float | None]:
        """Tokens the next call would re-send uncached after a rebuild, and their cost."""
        return rebuild_estimate(self.caller, self.registry.schemas(), model)

    def use_registry(self, registry: ToolRegistry) -> None:
        """Dispatch through `registry` (the MCP tools frozen or reloaded): its schemas
        become the session's tool choice, through the SessionFactory."""
        self.registry = registry
        if getattr(self, "session", None) is not None:  # None: restored before the session
            self.sessions.set_tools(self.session, tuple(registry.schemas()))
            self.tool_ctx = self._tool_context()

    def _tool_context(self) -> ToolContext:
        self.checkpoints = for_session(self.config.home, self.store, self.session.id,
                                       self.checkpoints)
        services = ToolServices(
            store=self.store, notes=self.sessions.notes, skills=self.skills,
            owner=self.config.owner,
            toolsets=tuple(self.registry.toolsets()), spawn_child=self.spawn_child,
            checkpoints=self.checkpoints, skill_shelf=_shelf(self.config), files=self.files,
            attach_image=self.attach_image)
        return ToolContext(session_id=self.session.id, home=self.config.home,
                           cwd=self.config.cwd, yolo=self.config.yolo, approve=self.approve,
                           state=self.session.tools, services=services,
                           sandbox=enforced(self.config.sandbox, self.config.permissions,
                                            self.config.cwd),
                           mode=self.session.choices.mode,
                           permissions=self.config.permissions, web=self.config.web,
                           hooks=self.hooks)

    def use_files(self, port: FilePort | None) -> None:
        """Read and write files through `port` (agent/tools/file_port.py: an editor's
        buffers), after every local check; None: the disk again."""
        self.files = port
        self.tool_ctx = self._tool_context()

    def set_mode(self, mode: str) -> None:
        """/plan on|off: the session's mode; the model hears of it in the next user
        message (agent/permissions/plan.py), no prompt or tool byte changes."""
        self.sessions.set_mode(self.session, mode)
        self.tool_ctx = self._tool_context()

    @property
    def provider(self) -> Provider:
        """The client of the session's provider and wire API (its choices, not config's)."""
        return self.clients.get(self.session.choices.settings(self.config))

    def warm_up(self) -> None:
        """Import the provider SDK ahead of the first call (front ends call this in the
        background after their first prompt is drawn; it sends nothing)."""
        try:
            importlib.import_module(profile_for(self.provider_name, self.model).sdk_module)
        except ImportError:
            return  # the first call reports the missing SDK properly

    def attach_image(self, data: bytes, name: str) -> Prepared:
        """`data` as an image this session's model takes, scaled once to its provider's
        limits (agent/providers/image_scale.py); ImageError when it is no image or the model has
        no vision. Front ends call this when the user attaches one, before the turn."""
        return image_for(data, name, self.provider_name, self.model)

    # ---- the turn ----------------------------------------------------------------
    def run_turn(self, text: str, cancel: CancelToken | None = None, *,
                 reasoning_effort: str | None = None, images: tuple[Image, ...] = (),
                 prelude: Prelude | None = None) -> Iterator[Event]:
        """Run one user message to its end, yielding events. Never raises for provider
        errors (they become ErrorEvent); history stays valid on cancel.

        `reasoning_effort` is a per-message setting: it applies to this turn only and is
        not part of the agent's signature (the gateway updates it in place). `images`
        (from `attach_image`) go with the message and stay in its stored history.
        `prelude(text)` runs inside the turn before the message is sent (its file changes
        are the turn's, for /undo) and returns the message text: a command file's shell
        commands (frontend/command_run.py).
        Observers (agent/observe.py: telemetry) watch the events on their way out."""
        info = TurnInfo(self.session_id, self.model, self.provider_name, text, self._subagent)
        return watched(self._turn_events(text, cancel, reasoning_effort, images, prelude), info,
                       self.observers)

    def _turn_events(self, text: str, cancel: CancelToken | None,  # noqa: PLR0913
                     reasoning_effort: str | None, images: tuple[Image, ...],
                     prelude: Prelude | None = None) -> Iterator[Event]:
        cancel = cancel or CancelToken()
        refused = None if self._subagent else self.budget.refusal()
        hint = REFUSAL_HINT
        pictured = images or any(m.images for m in self.conversation.messages)
        if pictured and refused is None:  # also a history with images after /model
            refused, hint = blind(self.provider_name, self.model), BLIND_HINT
        if refused:  # nothing is sent or stored
            yield ErrorEvent(refused, hint)
            yield Done("", "error")
            return
        context = ""
        if self.hooks is not None and not self.hooks.subagent:  # SessionStart, UserPromptSubmit
            source = None if self._hooked == self.session_id else \
                "resume" if self.conversation.messages else "startup"
            self._hooked = self.session_id
            refused, context = yield from seams.turn_start(self.hooks, self.session_id, source,
                                                           text, cancel)
            if refused is not None:  # nothing is sent or stored
                yield ErrorEvent(refused, seams.BLOCKED_HINT)
                yield Done("", "error")
                return
        self.caller.begin_turn(cancel, reasoning_effort)
        if not self._subagent:  # a sub-agent's turn does not restart its parent's budget
            self.budget.begin_turn()
        self.busy = True
        try:
            self.state.turn += 1
            if self.store is not None and self.checkpoints is not None:
                warning = self.checkpoints.begin_turn()
                if warning:
                    yield Notice(warning, "warning")
            self.session.tools.cancel = cancel
            if prelude is not None:
                text = yield from prelude(text)
            yield from mcp_hooks.before_call(self)  # freezes the MCP tools on the first call
            suffix = ""
            if self.config.recall and self.store is not None:
                suffix = recall_suffix(self.store, text, self.session_id, self.config.owner)
            suffix += context + plan.note(self.conversation.messages, self.session.choices.mode)
            turn = Turn(self.conversation, self.registry, self.tool_ctx, self.caller.call,
                        cancel, self.config.max_iterations,
                        limit=self.caller.budget_limit if self.config.budget.any else None,
                        on_stop=(seams.on_stop(self.hooks, lambda: self.session_id, cancel)
                                 if self.hooks is not None else None))
            host = Host(lambda: self.session, self.compactor, self.adopt, lambda: self.tool_ctx)
            # -- automatic compression before/after the turn, overflow retry --
            yield from compressing_turn(host, turn, Message("user", text, wire_suffix=suffix,
                                                                 images=tuple(images)))
            if self.store is not None:  # the first message names the session (once)
                row = self.store.get_session(self.session_id)
                if row is not None and not row.get("title"):
                    self.store.update_session(self.session_id, title=_title(text))
        finally:
            self.busy = False

    def spawn_child(self, goal: str, brief: str, toolsets: tuple[str, ...],
                    cancel: CancelToken | None) -> Iterator[Event]:
        """The `spawn_child` tool service: run a sub-agent turn on `goal` (the session's
        choices - model, reasoning, tool bytes - and stable blocks, the brief in its
        ephemeral layer, no store of its own; see agent.subagent) on this agent's SDK
        client, and yield its events; its usage is recorded on this session, so it
        shows in /usage."""
        config = replace(self.config, toolsets=toolsets, max_iterations=CHILD_ITERATIONS,
                         skills=(), ephemeral_extra=brief, recall=False)
        child = AIAgent(config, None, approve=self.approve, clock=self.caller.clock,
                        provider=Borrowed(self.provider),
                        registry=child_registry(self.registry, toolsets), parent=self.session,
                        budget=self.budget)
        child.checkpoints = self.checkpoints  # its writes belong to this turn
        child.files = self.files  # and go where this session's go
        child.caller.reached = self.caller.reached  # the same URL: an outage is retried
        child.tool_ctx = child._tool_context()
        self.child_warm.ensure(self.caller, cancel)  # agent/cache/child_warm.py
        try:
            for event in child.run_turn(goal, cancel):
                if isinstance(event, UsageEvent):  # again on this session, charged when made
                    first = " first call" if child.state.call_index == 1 else ""
                    self.caller.ledger.record(
                        self.session_id, self.provider_name, self.state,
                        Billed(event.usage, event.model, cause=event.miss_cause,
                               detail=f"sub-agent{first}: {event.miss_detail or 'ok'}"),
                        spend="counted", cost=event.cost_usd, numbered=False)
                yield event
        finally:
            child.close()

    def close(self) -> None:
        """Release resources: background processes the session's commands left running,
        and the HTTP client."""
        release_processes(self.session.tools)
        if self.hooks is not None:
            self.hooks.close()  # the hooks' sandbox
        if self.checkpoints is not None and self.store is not None:
            self.checkpoints.close()
        settle(self)
        self.clients.close()


def settle(agent: AIAgent, successor: str | None = None) -> list[UsageEvent]:
    """`agent`'s session is over on its adapters (exit; /new and compaction's child go on
    in `successor`, which takes over what an adapter holds for it - a cache of an
    unchanged prefix is kept, not made again): what a provider bills for it outside
    calls - an explicit cache's storage, Gemini's - is recorded through the ledger as
    one usage row of kind "cache_storage" (priced like any call, charged to the budget
    between turns); its events, for a front end that reports the session's cost after
    the turn (`-q --json`)."""
    return [agent.caller.ledger.record(agent.session_id, agent.provider_name, agent.state,
                                       Billed(usage, model, kind=CHARGE_KIND),
                                       spend="between", numbered=False)
            for usage, model in agent.clients.settle(agent.session.id, successor)]


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."
