"""AIAgent: one long-lived runtime per session.

Frozen for the session: stable system prompt, tool schemas, model, provider, ephemeral
layer. Per turn: the cancellation token and the event consumer. Deliberate cache breaks
(/model, /personality, /new, /undo) are methods that return a Notice saying what the
break costs; nothing else ever rebuilds the prompt.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime

from agent import models, pricing
from agent.calls import CallState, ModelCaller
from agent.cancel import CancelToken
from agent.compression_trigger import compressing_turn
from agent.config import AgentConfig
from agent.context import env_facts, find_context_file, read_soul
from agent.conversation import Conversation, repaired
from agent.errors import ConfigError
from agent.events import Event, Notice
from agent.loop import Turn
from agent.messages import Message
from agent.prompt import ENV_HEADER, PromptInputs, build_ephemeral, build_stable, estimate_tokens
from agent.providers import make_provider
from agent.providers.base import Provider
from agent.recall import recall_suffix
from agent.tools.registry import ToolContext, ToolRegistry, discover
from agent.tools.toolsets import DEFAULT_TOOLSETS, TOOLSET_GUIDANCE
from agent.usage import Usage
from memory.notes import Notes
from memory.store import SessionStore
from memory.threats import scan as scan_text
from skills.loader import SkillCatalog
from skills.loader import discover as discover_skills

_MODEL_LINE = re.compile(r"^Model: .*$", re.MULTILINE)


def new_session_id(now: datetime | None = None) -> str:
    """A sortable, unique session id: 20261129-184053-a1b2c3."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


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
    """One session's agent. Create with a config and a store; `run_turn` per message."""

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
    ) -> None:
        self.config = config
        self.store = store
        self.clock = clock
        self.approve = approve
        self.registry = registry or build_registry(config.toolsets)
        self.skills: SkillCatalog = discover_skills(config.home, scan=scan_text)
        self.notes = Notes(config.home)
        self.model = config.provider.model
        self.provider_name = config.provider.provider
        self._provider = provider
        self.busy = False
        self.reasoning_effort: str | None = None
        self.startup_notices: list[Notice] = [Notice(w, "warning") for w in self.skills.warnings]
        self.ephemeral = self._ephemeral_layer()
        self._inputs: PromptInputs | None = None
        if session_id is None:
            self._start_new()
        else:
            self._resume(session_id)

    # ---- session lifecycle -------------------------------------------------------
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

    def _gather(self, session_id: str) -> PromptInputs:
        snapshot = self.notes.snapshot()
        enabled = set(self.registry.toolsets())
        guidance = tuple((k, v) for k, v in TOOLSET_GUIDANCE.items() if k in enabled)
        return PromptInputs(
            env=env_facts(session_id, self.model, self.provider_name, self.config.cwd,
                          now=datetime.fromtimestamp(self.clock(), UTC)),
            soul=read_soul(self.config.home),
            personality=self.config.personality_text,
            guidance=guidance,
            memory=tuple(snapshot.memory),
            user=tuple(snapshot.user),
            context_file=find_context_file(self.config.cwd),
            skills_index=tuple(self.skills.index_lines()) if "skills" in enabled else (),
            context_max_chars=self.config.context_max_chars,
        )

    def _build(self, inputs: PromptInputs) -> str:
        built = build_stable(inputs)
        for item in built.blocked:
            self.startup_notices.append(Notice(f"Blocked from the prompt: {item}", "warning"))
        self._inputs = inputs
        return built.text

    def _start_new(self, parent_id: str | None = None) -> None:
        self.session_id = new_session_id()
        self.stable = self._build(self._gather(self.session_id))
        self.state = CallState()
        self.conversation = Conversation(self.store, self.session_id)
        self.tool_ctx = self._tool_context()
        if self.store is not None:
            self.store.create_session(
                self.session_id, model=self.model, provider=self.provider_name,
                system_prompt=self.stable, base_url=self.config.provider.base_url,
                personality=self.config.personality, cwd=str(self.config.cwd),
                ephemeral_prompt=self.ephemeral, tools=self.registry.names(),
                toolsets=self.registry.toolsets(), parent_id=parent_id,
                source=self.config.source, owner=self.config.owner,
            )

    def _resume(self, session_id: str) -> None:
        if self.store is None:
            raise ConfigError("cannot resume without a session store")
        row = self.store.get_session(self.store.resolve_session_id(session_id))
        self.session_id = row["id"]
        self.stable = row["system_prompt"]
        self.state = CallState()
        if row["model"] != self.model or row["provider"] != self.provider_name:
            self.stable = _with_model(self.stable, self.model, self.provider_name)
            self.store.update_session(self.session_id, model=self.model,
                                      provider=self.provider_name, system_prompt=self.stable)
            self.startup_notices.append(Notice(
                f"Resumed with {self.model} ({self.provider_name}) instead of {row['model']} "
                f"({row['provider']}): the system prompt names the model, so it was rebuilt and "
                "the first call writes the cache anew (the cache is per model anyway).", "warning"))
        if not self.config.skills and not self.config.ephemeral_extra:
            self.ephemeral = row.get("ephemeral_prompt") or ""
        elif self.ephemeral != (row.get("ephemeral_prompt") or ""):
            self.store.update_session(self.session_id, ephemeral_prompt=self.ephemeral)
            self.startup_notices.append(Notice(
                "The preloaded skills / instructions differ from the stored session's: the "
                "first call re-writes the cache after the stable system prompt.", "warning"))
        if list(row.get("tools") or []) != self.registry.names():
            self.startup_notices.append(Notice(
                "This session was stored with a different tool set; the first call re-sends "
                "the whole prompt uncached.", "warning"))
        self.conversation = Conversation(self.store, self.session_id)
        self.conversation.load()
        self.tool_ctx = self._tool_context()
        messages = repaired(self.conversation.messages)  # requests index this list
        if messages and messages[-1].role == "assistant":
            self.state.last_index_by_model[self.model] = len(messages) - 2
        rows = self.store.usage_rows(self.session_id)
        if rows:
            # only this session's own model calls carry a fingerprint (not summary calls,
            # not sub-agents): the diagnostics chain continues from the last of those
            main = [r for r in rows if r.get("prompt_fingerprint")]
            self.state.previous_response_id = main[-1].get("response_id") if main else None
            self.state.turn = max(int(r.get("turn") or 0) for r in rows)
            self.state.call_index = max(int(r.get("call_index") or 0) for r in rows)

    def _tool_context(self) -> ToolContext:
        return ToolContext(
            session_id=self.session_id, home=self.config.home, cwd=self.config.cwd,
            yolo=self.config.yolo, approve=self.approve, sandbox=self.config.sandbox,
            services={"store": self.store, "notes": self.notes, "skills": self.skills,
                      "agent": self, "owner": self.config.owner},
        )

    @property
    def provider(self) -> Provider:
        if self._provider is None:
            self._provider = make_provider(self.config.provider)
        return self._provider

    def warm_up(self) -> None:
        """Import the provider SDK ahead of the first call (front ends call this in the
        background after their first prompt is drawn; it sends nothing)."""
        import importlib

        module = "anthropic" if self.provider_name == "anthropic" else "openai"
        try:
            importlib.import_module(module)
        except ImportError:
            return  # the first call reports the missing SDK properly

    # ---- the turn ----------------------------------------------------------------
    def caller(self, cancel: CancelToken) -> ModelCaller:
        """The model-call layer bound to this session's frozen state (and the current
        turn's per-message settings)."""
        return ModelCaller(
            config=self.config, provider=self.provider, store=self.store,
            session_id=self.session_id, conversation=self.conversation, cancel=cancel,
            state=self.state, model=self.model, provider_name=self.provider_name,
            stable=self.stable, ephemeral=self.ephemeral, tools=self.registry.schemas(),
            clock=self.clock, reasoning_effort=self.reasoning_effort,
        )

    def run_turn(self, text: str, cancel: CancelToken | None = None, *,
                 reasoning_effort: str | None = None) -> Iterator[Event]:
        """Run one user message to its end, yielding events. Never raises for provider
        errors (they become ErrorEvent); history stays valid on cancel.

        `reasoning_effort` is a per-message setting: it applies to this turn only and is
        not part of the agent's signature (the gateway updates it in place)."""
        cancel = cancel or CancelToken()
        self.reasoning_effort = reasoning_effort
        self.busy = True
        try:
            self.state.turn += 1
            self.tool_ctx.state["cancel"] = cancel
            suffix = ""
            if self.config.recall and self.store is not None:
                suffix = recall_suffix(self.store, text, self.session_id, self.config.owner)
            turn = Turn(self.conversation, self.registry, self.tool_ctx,
                        self.caller(cancel).call, cancel, self.config.max_iterations)
            # -- issue 6: automatic compression before/after the turn, overflow retry --
            yield from compressing_turn(self, turn, Message("user", text, wire_suffix=suffix))
            if self.store is not None:
                row = self.store.get_session(self.session_id) or {}
                self.store.update_session(self.session_id, title=row.get("title") or _title(text))
        finally:
            self.busy = False

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
        self.model = model
        self.stable = _with_model(self.stable, model, self.provider_name)
        if self._inputs is not None:  # a later /personality rebuild must name this model
            self._inputs = replace(self._inputs, env=replace(self._inputs.env, model=model))
        if self.store is not None:
            self.store.update_session(self.session_id, model=model, system_prompt=self.stable)
        # the cache is per model: each model's last write position is kept (CallState),
        # so switching back reads that model's old entry even past the 20-block lookback
        unknown = "" if models.lookup(model) else " (not in the price table: cost unknown)"
        return Notice(f"Model {old} -> {model}{unknown}. The cache is per model: the next call "
                      f"re-sends ~{tokens:,} tokens uncached{_dollars(cost)}; one deliberate miss.",
                      "warning")

    def set_personality(self, name: str | None, text: str | None) -> Notice:
        """Rebuild the stable layer with another personality (memory snapshot kept)."""
        tokens, cost = self.rebuild_estimate()
        inputs = self._inputs or self._gather(self.session_id)
        self.stable = self._build(replace(inputs, personality=text))
        self.config = replace(self.config, personality=name, personality_text=text)
        if self.store is not None:
            self.store.update_session(self.session_id, personality=name, system_prompt=self.stable)
        self.state.reset_cache_chain()
        label = name or "none"
        return Notice(f"Personality -> {label}. The system prompt was rebuilt: the next call "
                      f"re-sends ~{tokens:,} tokens uncached{_dollars(cost)}.", "warning")

    def new_session(self) -> Notice:
        """Start a fresh session (memory re-read from disk: it is a new session)."""
        old = self.session_id
        self.ephemeral = self._ephemeral_layer()
        discarded = self.discard_if_empty()
        self._start_new()
        if discarded:
            return Notice(f"New session {self.session_id} (the previous one was empty and was "
                          "not kept). The new prompt is written to the cache on the first call.")
        return Notice(f"New session {self.session_id} (previous: {old}, resume with "
                      f"`hermes --resume {old}`). The new prompt is written to the cache on the "
                      "first call.")

    def undo(self) -> Notice | None:
        """Drop the last exchange (a deliberate history edit). None when nothing to undo."""
        index = self._last_user_index()
        if index is None:
            return None
        dropped = len(self.conversation.messages) - index
        self.conversation.truncate(index)
        self.state.reset_cache_chain()
        return Notice(f"Dropped the last exchange ({dropped} messages). The cache stays valid for "
                      "the messages kept; the next call writes from there on.")

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
        """Compress the history (the one sanctioned rewrite); see agent.compression."""
        from agent.compression import compress_session

        return compress_session(self, focus=focus, preview=preview, cancel=cancel or CancelToken())

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
        from agent.tools.terminal import release_processes

        release_processes(self.tool_ctx.state)
        if self._provider is not None:
            self._provider.close()
            self._provider = None


def _with_model(stable: str, model: str, provider: str) -> str:
    """The stable text with only the environment section's model line replaced (a
    "Model:" line in SOUL.md or a context file above it is left alone)."""
    start = stable.rfind(ENV_HEADER)
    head, tail = (stable, "") if start < 0 else (stable[:start], stable[start:])
    if not tail:
        return stable
    line = f"Model: {model} ({provider})"
    return head + _MODEL_LINE.sub(lambda _match: line, tail, count=1)


def _title(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."


def _dollars(cost: float | None) -> str:
    return ", cost unknown" if cost is None else f", est. ${cost:.4f}"

