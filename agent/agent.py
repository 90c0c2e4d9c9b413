"""AIAgent: one long-lived runtime per session.

Frozen for the session: stable system prompt, tool schemas, model, provider, ephemeral
layer. Per turn: the cancellation token and the event consumer. Deliberate cache breaks
(/model, /personality, /new, /undo) are methods that return a Notice saying what the
break costs; nothing else ever rebuilds the prompt.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

from agent import pricing
from agent.budget import REFUSAL_HINT, UNENFORCEABLE, Budget
from agent.calls import ModelCaller
from agent.cancel import CancelToken
from agent.checkpoints import CheckpointStore, for_session
from agent.compression import Compactor
from agent.compression_trigger import Host, compressing_turn
from agent.config import AgentConfig
from agent.errors import ConfigError
from agent.events import Done, ErrorEvent, Event, Notice, UsageEvent
from agent.loop import Turn
from agent.mcp import hooks as mcp_hooks
from agent.messages import Message
from agent.profile import profile_for
from agent.prompt import build_ephemeral, estimate_tokens
from agent.providers import make_provider
from agent.providers.base import Provider
from agent.recall import recall_suffix
from agent.session import Session, SessionFactory, new_session_id
from agent.subagent import child_registry
from agent.tools.registry import ToolContext, ToolRegistry, ToolServices, discover
from agent.tools.terminal import release_processes
from agent.tools.toolsets import DEFAULT_TOOLSETS
from agent.usage import Usage
from memory.notes import Notes
from memory.store import SessionStore
from memory.threats import scan as scan_text
from skills.loader import SkillCatalog
from skills.loader import discover as discover_skills

__all__ = ["AIAgent", "build_registry", "new_session_id"]

CHILD_ITERATIONS = 50  # a sub-agent's tool iterations


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


class AIAgent:
    """One session's agent. Create with a config and a store; `run_turn` per message.

    The session's state lives in `self.session` (agent.session.Session); the agent
    holds the collaborators (provider, store, tools, skills, notes) and the strategy
    objects built once: the SessionFactory (the only code that makes or changes a
    session's prompt), the ModelCaller and the Compactor, which read the current
    session by reference."""

    def __init__(
        self,
        config: AgentConfig,
        store: SessionStore | None,
        *,
        session_id: str | None = None,
        approve: Callable[[str, str], bool] | None = None,
        clock: Callable[[], float] = time.time,
        provider: Provider | None = None,
        registry: ToolRegistry | None = None,
        budget: Budget | None = None,
        parent: Session | None = None,
        mcp=None,  # agent.mcp.frozen.McpTools: this session's MCP tools (None: none)
    ) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.approve = approve
        self.registry = registry or build_registry(config.toolsets)
        self.base_registry, self.mcp = self.registry, mcp  # MCP tools join at freeze
        self.skills: SkillCatalog = discover_skills(config.home, scan=scan_text)
        self.notes = Notes(config.home)
        self._provider = provider
        self.busy = False
        self.sessions = SessionFactory(config, store, notes=self.notes, skills=self.skills,
                                       registry=self.registry, clock=clock)
        self.startup_notices: list[Notice] = self.sessions.notices
        self.startup_notices.extend(Notice(w, "warning") for w in self.skills.warnings)
        # a sub-agent draws from its parent's budget (shared, not owned: its turn does
        # not restart the parent's turn budget)
        self._owns_budget = budget is None
        self.budget = budget or Budget(config.budget)
        tools = self.registry.schemas()
        self.caller = ModelCaller(config, lambda: self.provider, store, lambda: self.session,
                                  tools, clock, self.budget)
        self.compactor = Compactor(config, lambda: self.provider, store, tools, self.sessions,
                                   self.budget)
        model, provider_name = config.provider.model, config.provider.provider
        ephemeral = self._ephemeral_layer()
        if session_id is not None:  # its frozen MCP tools first: resume compares the set
            mcp_hooks.restore(self, session_id)
        if parent is not None:  # a sub-agent: the parent's stable bytes (agent.subagent)
            self.session = self.sessions.sub_agent(parent, ephemeral)
        elif session_id is None:
            self.session = self.sessions.start(model, provider_name, ephemeral)
        else:
            self.session = self.sessions.resume(session_id, model, provider_name, ephemeral)
        self.checkpoints: CheckpointStore | None = None  # files written, for /undo and /diff
        self.tool_ctx = self._tool_context()
        if self._owns_budget:
            self._load_spend()

    def _load_spend(self) -> None:
        """What the session (its compression lineage) already spent; say once when its
        USD limit cannot be enforced."""
        if self.store is not None:
            costs = [r.get("cost_usd") for r in self.store.usage_rows(self.session_id, lineage=True)]
            self.budget.spent_usd = sum(c for c in costs if c is not None)
            self.budget.unpriced = any(c is None for c in costs)
        limit = self.config.budget.session_usd
        if limit is not None and pricing.cost(Usage(uncached=1), self.model,
                                              self.config.prices) is None:
            self.budget.unpriced = True
            self.startup_notices.append(Notice(UNENFORCEABLE.format(limit=limit, model=self.model),
                                               "warning"))

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
    def conversation(self):
        return self.session.conversation

    @property
    def state(self):
        """The session's CallState (cache bookkeeping)."""
        return self.session.calls

    @property
    def reasoning_effort(self) -> str | None:
        return self.caller.reasoning_effort

    def adopt(self, session: Session) -> None:
        """Continue in `session` (compression's child): tools bound to it."""
        self.session = session
        self.tool_ctx = self._tool_context()
        mcp_hooks.persist(self)  # compression's child keeps the frozen MCP schemas

    def _ephemeral_layer(self) -> str:
        missing = [name for name in self.config.skills if self.skills.get(name) is None]
        broken = [f"{n}: {self.skills.problem(n)}" for n in missing if self.skills.problem(n)]
        if broken:
            raise ConfigError("broken skill(s): " + "; ".join(broken),
                              "fix those SKILL.md files (see `hermes skills list`)")
        if missing:
            names = ", ".join(sorted(self.skills.skills)) or "none"
            raise ConfigError(f"unknown skill(s): {', '.join(missing)}", f"available skills: {names}")
        texts = tuple((n, self.skills.get(n).body) for n in self.config.skills)
        return build_ephemeral(texts, self.config.ephemeral_extra)

    def _tool_context(self) -> ToolContext:
        self.checkpoints = for_session(self.config.home, self.store, self.session.id,
                                       self.checkpoints)
        services = ToolServices(
            store=self.store, notes=self.notes, skills=self.skills, owner=self.config.owner,
            toolsets=tuple(self.registry.toolsets()), spawn_child=self.spawn_child,
            checkpoints=self.checkpoints)
        return ToolContext(session_id=self.session.id, home=self.config.home,
                           cwd=self.config.cwd, yolo=self.config.yolo, approve=self.approve,
                           state=self.session.tools, services=services,
                           sandbox=self.config.sandbox)

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = make_provider(self.config.provider)
        return self._provider

    def warm_up(self) -> None:
        """Import the provider SDK ahead of the first call (front ends call this in the
        background after their first prompt is drawn; it sends nothing)."""
        try:
            importlib.import_module(profile_for(self.provider_name, self.model).sdk_module)
        except ImportError:
            return  # the first call reports the missing SDK properly

    # ---- the turn ----------------------------------------------------------------
    def run_turn(self, text: str, cancel: CancelToken | None = None, *,
                 reasoning_effort: str | None = None) -> Iterator[Event]:
        """Run one user message to its end, yielding events. Never raises for provider
        errors (they become ErrorEvent); history stays valid on cancel.

        `reasoning_effort` is a per-message setting: it applies to this turn only and is
        not part of the agent's signature (the gateway updates it in place)."""
        cancel = cancel or CancelToken()
        refused = self.budget.refusal() if self._owns_budget else None
        if refused:  # nothing is sent or stored
            yield ErrorEvent(refused, REFUSAL_HINT)
            yield Done("", "error")
            return
        self.caller.begin_turn(cancel, reasoning_effort)
        if self._owns_budget:
            self.budget.begin_turn()
        self.busy = True
        try:
            self.state.turn += 1
            if self.store is not None and self.checkpoints is not None:
                warning = self.checkpoints.begin_turn()
                if warning:
                    yield Notice(warning, "warning")
            self.session.tools.cancel = cancel
            yield from mcp_hooks.before_call(self)  # freezes the MCP tools on the first call
            suffix = ""
            if self.config.recall and self.store is not None:
                suffix = recall_suffix(self.store, text, self.session_id, self.config.owner)
            turn = Turn(self.conversation, self.registry, self.tool_ctx, self.caller.call,
                        cancel, self.config.max_iterations,
                        limit=self.caller.budget_limit if self.config.budget.any else None)
            host = Host(lambda: self.session, self.compactor, self.adopt, lambda: self.tool_ctx)
            # -- automatic compression before/after the turn, overflow retry --
            yield from compressing_turn(host, turn, Message("user", text, wire_suffix=suffix))
            if self.store is not None:
                row = self.store.get_session(self.session_id) or {}
                self.store.update_session(self.session_id, title=row.get("title") or _title(text))
        finally:
            self.busy = False

    def spawn_child(self, goal: str, brief: str, toolsets: tuple[str, ...],
                    cancel: CancelToken | None) -> Iterator[Event]:
        """The `spawn_child` tool service: run a sub-agent turn on `goal` (the parent's
        tools and stable blocks, byte for byte, the brief in its ephemeral layer, the
        parent's current model, no store of its own; see agent.subagent) and yield its
        events; its usage is recorded on this session, so it shows in /usage."""
        provider = replace(self.config.provider, model=self.model)  # /model switches too
        config = replace(self.config, provider=provider, toolsets=toolsets,
                         max_iterations=CHILD_ITERATIONS, skills=(), ephemeral_extra=brief,
                         recall=False)
        child = AIAgent(config, None, approve=self.approve, clock=self.clock,
                        registry=child_registry(self.registry, toolsets), parent=self.session,
                        budget=self.budget)
        child.checkpoints = self.checkpoints  # its writes belong to this turn
        child.tool_ctx = child._tool_context()
        try:
            for event in child.run_turn(goal, cancel):
                if isinstance(event, UsageEvent):
                    self._record_child(event, first=child.state.call_index == 1)
                yield event
        finally:
            child.close()

    def _record_child(self, event: UsageEvent, *, first: bool = False) -> None:
        if self.store is None:
            return
        usage = event.usage
        self.store.add_usage(
            self.session_id, turn=self.state.turn, call_index=0, model=event.model,
            provider=self.provider_name, uncached=usage.uncached, write_5m=usage.write_5m,
            write_1h=usage.write_1h, cache_read=usage.cache_read if usage.cache_known else None,
            output=usage.output, cost_usd=event.cost_usd, cache_known=usage.cache_known,
            miss_cause=event.miss_cause,
            miss_detail=f"sub-agent{' first call' if first else ''}: {event.miss_detail or 'ok'}",
        )

    # ---- deliberate cache breaks -------------------------------------------------
    def rebuild_estimate(self, model: str | None = None) -> tuple[int, float | None]:
        """Tokens the next call would re-send uncached after a rebuild, and their cost
        as a cache write (None when the model's price is unknown)."""
        text = "".join(t.canonical() for t in self.registry.schemas()) + self.stable + self.ephemeral
        text += "".join(m.wire_text + "".join(c.arguments for c in m.tool_calls)
                        for m in self.conversation.messages)
        tokens = estimate_tokens(text)
        cost = pricing.cost(Usage(write_5m=tokens, calls=1), model or self.model, self.config.prices)
        return tokens, cost

    def switch_model(self, model: str) -> Notice:
        """Switch model in place: history and memory snapshot kept; exactly one miss."""
        old = self.model
        tokens, cost = self.rebuild_estimate(model)
        self.sessions.switch_model(self.session, model)
        # the cache is per model: each model's last write position is kept (CallState),
        # so switching back reads that model's old entry even past the 20-block lookback
        unknown = "" if cost is not None else " (not in the price table: cost unknown)"
        return Notice(f"Model {old} -> {model}{unknown}. The cache is per model: the next call "
                      f"re-sends ~{tokens:,} tokens uncached{_dollars(cost)}; one deliberate miss.",
                      "warning")

    def set_personality(self, name: str | None, text: str | None) -> Notice:
        """Rebuild the stable layer with another personality (memory snapshot kept)."""
        tokens, cost = self.rebuild_estimate()
        self.config = replace(self.config, personality=name, personality_text=text)
        self.sessions.set_personality(self.session, text, name)
        label = name or "none"
        return Notice(f"Personality -> {label}. The system prompt was rebuilt: the next call "
                      f"re-sends ~{tokens:,} tokens uncached{_dollars(cost)}.", "warning")

    def new_session(self) -> Notice:
        """Start a fresh session (memory re-read from disk: it is a new session). The
        background processes of the old one stay tracked, so close() still ends them."""
        old = self.session
        ephemeral = self._ephemeral_layer()
        discarded = self.discard_if_empty()
        if self.mcp is not None:  # the new session freezes the servers' current lists
            self.mcp.thaw()
        self.adopt(self.sessions.start(old.model, old.provider, ephemeral))
        self.session.tools.process_groups = old.tools.process_groups
        if self._owns_budget:  # the spend limit is per session
            self.budget.spent_usd, self.budget.unpriced = 0.0, False
        if discarded:
            return Notice(f"New session {self.session_id} (the previous one was empty and was "
                          "not kept). The new prompt is written to the cache on the first call.")
        return Notice(f"New session {self.session_id} (previous: {old.id}, resume with "
                      f"`hermes --resume {old.id}`). The new prompt is written to the cache on the "
                      "first call.")

    def undo(self, force: bool = False) -> Notice | None:
        """Drop the last exchange (a deliberate history edit) and put back the files its
        turn wrote. None when nothing to undo; raises checkpoints.UndoRefused (nothing
        changed) when one of those files was edited since, unless `force`."""
        index = self._last_user_index()
        if index is None:
            return None
        files = ""
        if self.checkpoints is not None and not self.checkpoints.broken:
            files = self.checkpoints.undo(force=force, cwd=self.config.cwd).summary()
        dropped = len(self.conversation.messages) - index
        self.conversation.truncate(index)
        self.state.reset_cache_chain()
        files = f" Files: {files}." if files else ""
        return Notice(f"Dropped the last exchange ({dropped} messages).{files} The cache stays "
                      "valid for the messages kept; the next call writes from there on.")

    def last_user_text(self) -> str | None:
        index = self._last_user_index()
        return None if index is None else self.conversation.messages[index].content

    def _last_user_index(self) -> int | None:
        for index in range(len(self.conversation.messages) - 1, -1, -1):
            message = self.conversation.messages[index]
            if message.role == "user" and not message.kind:
                return index
        return None

    def compress(self, focus: str | None = None, preview: bool = False,
                 cancel: CancelToken | None = None) -> Iterator[Event]:
        """Compress the history (the one sanctioned rewrite); see agent.compression. The
        agent continues in the new session when one was made."""
        new = yield from self.compactor.compress(self.session, focus, preview,
                                                 cancel or CancelToken())
        if new is not None:
            self.adopt(new)

    def discard_if_empty(self) -> bool:
        """Delete this CLI session's row when nothing was ever said in it (a REPL opened
        and closed, or left by /new or /resume), so session lists stay useful."""
        if self.store is None or self.config.source != "cli" or self.conversation.messages:
            return False
        if self.store.usage_rows(self.session_id):
            return False
        self.store.delete_session(self.session_id)
        return True

    def close(self) -> None:
        """Release resources: background processes the session's commands left running,
        and the HTTP client."""
        release_processes(self.session.tools)
        if self.checkpoints is not None and self.store is not None:
            self.checkpoints.close()
        if self._provider is not None:
            self._provider.close()
            self._provider = None


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."


def _dollars(cost: float | None) -> str:
    return ", cost unknown" if cost is None else f", est. ${cost:.4f}"

