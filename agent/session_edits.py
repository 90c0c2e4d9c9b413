"""Deliberate session edits: the commands that change a session's prompt or history on
purpose (/model, /personality, /new, /undo, /compress) and say what the cache pays for it.

A mixin of `AIAgent` (agent/agent.py), kept apart by concept: the agent runs turns; these
methods are the only ones that rewrite what the next call sends, each through the
SessionFactory or the Compactor, and each returns the notice that explains the miss.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from agent.cancel import CancelToken
from agent.cost import pricing
from agent.events import Event, Notice
from agent.images import WithImages
from agent.modelcall.break_cost import break_cost, prompt_tokens, warm_tokens
from agent.providers.registry import label
from agent.tokens import estimate_tokens
from agent.usage import usd

if TYPE_CHECKING:  # types only: none of these modules imports this one
    from agent.checkpoints import CheckpointStore
    from agent.compression.compactor import Compactor
    from agent.config import AgentConfig
    from agent.cost.budget import Budget
    from agent.mcp.frozen import McpTools
    from agent.modelcall.calls import ModelCaller
    from agent.sessions.call_state import CallState
    from agent.sessions.conversation import Conversation
    from agent.sessions.session import Session, SessionFactory
    from agent.tools.registry import ToolRegistry
    from memory.store import SessionStore


class _Agent(Protocol):
    """What these edits use of the agent they are mixed into (agent/agent.py AIAgent)."""

    session: Session
    sessions: SessionFactory
    compactor: Compactor
    caller: ModelCaller
    config: AgentConfig
    registry: ToolRegistry
    store: SessionStore | None
    checkpoints: CheckpointStore | None
    budget: Budget
    mcp: McpTools | None
    _subagent: bool

    @property
    def model(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def stable(self) -> str: ...
    @property
    def ephemeral(self) -> str: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def state(self) -> CallState: ...

    def adopt(self, session: Session) -> None: ...
    def discard_if_empty(self) -> bool: ...


class SessionEdits:
    """`AIAgent`'s deliberate cache breaks (see the module docstring). Uses the agent's
    session, sessions (SessionFactory), compactor, config, registry, store, checkpoints,
    budget and mcp; never imports the agent module (no import circle)."""

    def switch_model(self: _Agent, model: str, provider: str | None = None) -> Notice:
        """Switch model in place: history and memory snapshot kept; exactly one miss.
        With another `provider` (configured: AgentConfig.settings_for) the next call goes
        there, on its own client; its cache holds nothing of this session yet."""
        old, was = self.model, self.session.provider
        self.sessions.switch_model(self.session, model, provider)
        moved = self.session.provider != was
        if moved:  # the last request belongs to the other provider: never replayed here
            self.caller.moved_provider()
        # the cache is per model: each model's last write position is kept (CallState),
        # so switching back reads that model's old entry even past the 20-block lookback
        tools = self.registry.schemas()
        warm = warm_tokens(self.caller, model, self.caller.clock())
        read, write, cost = break_cost(self.caller, tools, model, warm,
                                       self.caller.unwritten_tokens() if warm else None)
        head = f"Model {old} -> {model}"
        if moved:
            head += f", provider {label(was)} -> {label(self.session.provider)}"
        if read:
            return Notice(f"{head}. {model}'s cache from earlier in this session is still warm: "
                          f"the next call reads ~{read:,} tokens from it and writes "
                          f"~{write:,}{cost}.", "info")
        why = "per provider and model" if moved else "per model"
        return Notice(f"{head}. The cache is {why}: the next call re-sends ~{write:,} tokens "
                      f"uncached{cost}; one deliberate miss.{storage_note(self.caller, old, self.config.prices)}", "warning")

    def set_personality(self: _Agent, name: str | None, text: str | None) -> Notice:
        """Rebuild the stable layer with another personality (memory snapshot kept)."""
        self.sessions.set_personality(self.session, name, text)
        label = name or "none"
        # the tools come before the system prompt: their cached entry stays valid
        tools = estimate_tokens("".join(t.canonical() for t in self.registry.schemas()))
        warm = warm_tokens(self.caller, self.model, self.caller.clock())
        read, write, cost = break_cost(self.caller, self.registry.schemas(), self.model,
                                       tools if warm else 0)
        storage = storage_note(self.caller, self.model, self.config.prices)
        if read:
            return Notice(f"Personality -> {label}. The system prompt was rebuilt: the next call "
                          f"reads the tools (~{read:,} tokens, still cached) and writes "
                          f"~{write:,}{cost}.{storage}", "warning")
        return Notice(f"Personality -> {label}. The system prompt was rebuilt: the next call "
                      f"re-sends ~{write:,} tokens uncached{cost}.{storage}", "warning")

    def new_session(self: _Agent) -> Notice:
        """Start a fresh session (memory re-read from disk: it is a new session) with
        this one's choices (model, personality, reasoning, system text). The background
        processes (and the sandbox's namespaces) of the old one stay tracked, so close()
        still ends them."""
        old = self.session
        discarded = self.discard_if_empty()
        if self.mcp is not None:  # the new session freezes the servers' current lists
            self.mcp.thaw()
        self.adopt(self.sessions.start(old.choices))  # the session's choices carry over
        self.session.tools.process_groups = old.tools.process_groups
        self.session.tools.sandbox = old.tools.sandbox  # its namespaces, ended by close()
        if not self._subagent:  # the spend limit is per session
            self.budget.spent_usd, self.budget.unpriced = 0.0, False
        if discarded:
            return Notice(f"New session {self.session_id} (the previous one was empty and was "
                          "not kept). The new prompt is written to the cache on the first call.")
        return Notice(f"New session {self.session_id} (previous: {old.id}, resume with "
                      f"`hermes --resume {old.id}`). The new prompt is written to the cache on the "
                      "first call.")

    def undo(self: _Agent, force: bool = False) -> Notice | None:
        """Drop the last exchange (a deliberate history edit) and put back the files its
        turn wrote. None when nothing to undo; raises checkpoints.UndoRefused (nothing
        changed) when one of those files was edited since, unless `force`."""
        index = self.conversation.last_user_index()
        if index is None:
            return None
        files = ""
        if self.checkpoints is not None and not self.checkpoints.broken:
            files = self.checkpoints.undo(force=force, cwd=self.config.cwd).summary()
        dropped = len(self.conversation.messages) - index
        self.conversation.truncate(index)
        self.state.reset_cache_chain()
        # the context is smaller now: the toolbar and the budget estimate from what is
        # left, until the next call measures it
        self.state.last_prompt_tokens = 0
        self.state.context_estimate = prompt_tokens(self.caller, self.registry.schemas())
        files = f" Files: {files}." if files else ""
        index = self.session.tools.workspace_index
        if index is not None and index.off:
            files += f" ({index.off}.)"
        return Notice(f"Dropped the last exchange ({dropped} messages).{files} The cache stays "
                      "valid for the messages kept; the next call writes from there on.")

    def last_user_text(self: _Agent) -> str | None:
        """The last user message's text, carrying its images (`agent.images.WithImages`)."""
        index = self.conversation.last_user_index()
        if index is None:
            return None
        message = self.conversation.messages[index]
        return WithImages.of(message.content, message.images)

    def compress(self: _Agent, focus: str | None = None, preview: bool = False,
                 cancel: CancelToken | None = None) -> Iterator[Event]:
        """Compress the history (the one sanctioned rewrite); see agent.compression.compactor. The
        agent continues in the new session when one was made."""
        new = yield from self.compactor.compress(self.session, focus, preview,
                                                 cancel or CancelToken())
        if new is not None:
            self.adopt(new)

    def discard_if_empty(self: _Agent) -> bool:
        """Delete this CLI session's row when nothing was ever said in it (a REPL opened
        and closed, or left by /new or /resume; a `-q` run that failed before sending,
        e.g. on a bad --image), so session lists stay useful."""
        if (self.store is None or self.config.source not in ("cli", "oneshot")
                or self.conversation.messages):
            return False
        if self.store.usage_rows(self.session_id):
            return False
        self.store.delete_session(self.session_id)
        return True


def storage_note(caller: ModelCaller, model: str, prices: dict[str, Any] | None) -> str:
    """What a prefix change does to a cache billed by the hour (a "resource" cache:
    Gemini's cachedContents); "" for the other cache models."""
    if caller.cache_model(model).style != "resource":
        return ""
    found = pricing.prices(model, prices)
    rate = f" ({usd(found.storage_hour)} per million tokens per hour)" if found else ""
    return (f" {model}'s explicit cache of the old prefix{rate} is deleted at the next call, "
            "so its storage stops; a cache of the new prefix is created only where it is "
            "expected to pay (written at the input price, then stored by the hour).")
