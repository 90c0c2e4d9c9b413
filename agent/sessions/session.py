"""Session: one session's state, owned in one place, and its transitions.

A `Session` holds everything that belongs to one stored session: its id and parent, its
choices (agent.sessions.choices.Choices: model, provider, personality, reasoning, extra system
text, frozen tool schemas), the frozen stable text (and the inputs it was built from),
the ephemeral layer, the conversation, the call state (cache bookkeeping) and the tools'
state. It is passed by reference: the model caller, the tools and compression read the
same object; nothing copies its fields.

`SessionFactory` is the only code that makes or changes a Session's prompt:
- `start()` - a new session (memory read from disk, prompt built and stored);
- `resume(id)` - a stored session, with its stored prompt bytes (docs/CACHING.md section 2, invariant 7);
- `child(parent)` - compression's continuation: a new stored session whose prompt is
  rebuilt with memory re-read, carrying the call numbering (CallState.for_child) and
  the tools' state (terminal cwd, todo list) across the seam;
- `switch_model`, `set_personality`, `set_reasoning`, `set_tools`, `set_system` - the
  deliberate, announced changes of the session's choices (the only writer of
  `Session.choices`; each is stored with the session).
Notices produced on the way (blocked prompt items, resume differences) are collected in
`notices` for the front end to show.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from agent.config import AgentConfig
from agent.errors import ConfigError
from agent.events import Notice
from agent.messages import Reasoning, ToolSchema
from agent.prompts.context import env_facts, find_context_file, read_soul
from agent.prompts.prefix import Blocks, Layout, decode, encode, layout_of, relayout, split
from agent.prompts.prompt import ENV_HEADER, EnvFacts, PromptInputs, build_ephemeral, build_stable
from agent.sessions.call_state import CallState
from agent.sessions.choices import Choices, api_of
from agent.sessions.conversation import Conversation, repaired
from agent.tools.registry import ToolState
from agent.tools.toolsets import guidance_pairs
from memory.notes import Notes
from memory.store import SessionStore
from skills.authored import withhold
from skills.loader import SkillCatalog

_MODEL_LINE = re.compile(r"^Model: .*$", re.MULTILINE)


def new_session_id(now: datetime | None = None) -> str:
    """A sortable, unique session id: 20261129-184053-a1b2c3."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    return moment.strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


@dataclass
class Session:
    """The state of one session (see module docstring)."""

    id: str
    choices: Choices
    stable: str
    ephemeral: str
    conversation: Conversation
    calls: CallState = field(default_factory=CallState)
    tools: ToolState = field(default_factory=ToolState)
    inputs: PromptInputs | None = None  # what `stable` was built from (None: resumed)
    parent_id: str | None = None
    layout: Layout = ()  # the stable blocks' boundaries (agent.prompts.prefix); () = one block

    @property
    def model(self) -> str:
        return self.choices.model

    @property
    def provider(self) -> str:
        return self.choices.provider

    @property
    def blocks(self) -> Blocks:
        """The stable layer as system blocks, most shared first (agent.prompts.prefix.split)."""
        return split(self.stable, self.layout)


class SessionFactory:
    """Makes and changes Sessions for one agent (see module docstring)."""

    def __init__(self, config: AgentConfig, store: SessionStore | None, *, notes: Notes,  # noqa: PLR0913
                 skills: Callable[[], SkillCatalog], toolsets: tuple[str, ...],
                 framed: bool = False,
                 writes_skills: bool = False, clock: Callable[[], float] = time.time) -> None:
        """`skills()`: the skills on disk now (read once here, again for each later new
        stable layer, so skills written meanwhile join the next session's index);
        `toolsets`: the built-in toolsets (their guidance goes in the prompt);
        `framed`: some tool results come in the untrusted-data frame (its guidance);
        `writes_skills`: skill_manage is offered (its guidance)."""
        self.config = config
        self.store = store
        self.notes = notes
        self.find_skills = skills
        self.own_sessions: set[str] = set()  # started here: their skills need no approval
        self.skills = withhold(skills())  # the index: agent-written skills need approval
        self._skills_fresh = True  # read just now: the first new session's build uses it
        self.writes_skills = writes_skills
        self.toolsets = toolsets
        self.framed = framed
        self.clock = clock
        self.notices: list[Notice] = []

    def ephemeral(self, system: str) -> str:
        """The ephemeral layer: config's skills (each must exist and parse) and a
        session's extra system text."""
        missing = [name for name in self.config.skills if self.skills.get(name) is None]
        broken = [f"{n}: {self.skills.problem(n)}" for n in missing if self.skills.problem(n)]
        if broken:
            raise ConfigError("broken skill(s): " + "; ".join(broken),
                              "fix those SKILL.md files (see `hermes skills list`)")
        if missing:
            names = ", ".join(sorted(self.skills.skills)) or "none"
            raise ConfigError(f"unknown skill(s): {', '.join(missing)}", f"available skills: {names}")
        texts = tuple((n, skill.body) for n in self.config.skills
                      if (skill := self.skills.get(n)) is not None)
        return build_ephemeral(texts, system)

    # -- building the stable layer ----------------------------------------------------
    def gather(self, session_id: str, choices: Choices) -> PromptInputs:
        """Read the stable layer's inputs from disk (memory snapshot frozen here)."""
        snapshot = self.notes.snapshot()
        enabled = set(self.toolsets)
        guidance = guidance_pairs(enabled, self.framed, writes_skills=self.writes_skills)
        if not self._skills_fresh:  # skills written since are in the new index
            self.skills = withhold(self.find_skills(), self.own_sessions)
        self._skills_fresh = False
        indexed = "skills" in enabled
        return PromptInputs(
            env=pinned(env_facts(session_id, choices.model, choices.provider, self.config.cwd,
                                 now=datetime.fromtimestamp(self.clock(), UTC)),
                       self.config.pinned_env),
            soul=read_soul(self.config.home),
            personality=choices.personality_text,
            guidance=guidance,
            memory=tuple(snapshot.memory),
            user=tuple(snapshot.user),
            context_file=find_context_file(self.config.cwd, self.config.home),
            skills_index=tuple(self.skills.index_lines()) if indexed else (),
            tenant_skills=tuple(self.skills.index_lines(("tenant",))) if indexed else (),
            context_max_chars=self.config.context_max_chars,
        )

    def build(self, inputs: PromptInputs) -> tuple[str, Layout]:
        """The stable text and its block layout (see agent.prompts.prefix)."""
        built = build_stable(inputs)
        for item in built.blocked:
            self.notices.append(Notice(f"Blocked from the prompt: {item}", "warning"))
        return built.text, layout_of(built.blocks)

    # -- transitions ------------------------------------------------------------------
    def start(self, choices: Choices, *, parent: Session | None = None) -> Session:
        """A new stored session; with `parent`, compression's child (module docstring)."""
        session_id = new_session_id()
        inputs = self.gather(session_id, choices)
        self.own_sessions.add(session_id)
        stable, layout = self.build(inputs)
        ephemeral = parent.ephemeral if parent is not None else self.ephemeral(choices.system)
        session = Session(session_id, choices, stable, ephemeral,
                          Conversation(self.store, session_id), inputs=inputs,
                          parent_id=parent.id if parent else None, layout=layout)
        if parent is not None:
            session.calls = parent.calls.for_child()
            session.tools = parent.tools  # terminal cwd, todo list, background processes
        if self.store is not None:
            reached = self.config.settings_for(choices.provider)  # /new after a move: its URL
            self.store.create_session(
                session.id, model=choices.model, provider=choices.provider,
                system_prompt=session.stable, base_url=reached.base_url if reached else None,
                personality=choices.personality, cwd=str(self.config.cwd),
                ephemeral_prompt=ephemeral, tools=choices.tool_names, toolsets=list(self.toolsets),
                parent_id=session.parent_id, source=self.config.source, owner=self.config.owner,
            )
            self.store.update_session(session.id, stable_layout=encode(layout),
                                      choices=choices.stored())
        return session

    def sub_agent(self, parent: Session, brief: str) -> Session:
        """A sub-agent's unstored session: a new id, the PARENT's choices (its model,
        reasoning and tool bytes) with the brief as its extra system text, the parent's
        stable bytes and block layout (so its first request reads the parent's cached
        prefix), the brief in the ephemeral layer (agent.subagent)."""
        session_id = new_session_id()
        choices = replace(parent.choices, system=brief)
        return Session(session_id, choices, parent.stable, self.ephemeral(brief),
                       Conversation(None, session_id), layout=parent.layout,
                       parent_id=parent.id)

    def child(self, parent: Session) -> Session:
        """Compression's continuation of `parent` (its choices and title carried over)."""
        child = self.start(parent.choices, parent=parent)
        if self.store is not None:
            title = (self.store.get_session(parent.id) or {}).get("title")
            if title:
                self.store.update_session(child.id, title=title)
        return child

    def discard(self, session: Session) -> None:
        """Delete a half-made session row (compression rolled back)."""
        if self.store is not None:
            self.store.delete_session(session.id)

    def resume(self, session_id: str, defaults: Choices) -> Session:
        """A stored session with its stored prompt bytes and choices (over `defaults`,
        whose model and provider the front end resolved); differences are announced."""
        if self.store is None:
            raise ConfigError("cannot resume without a session store")
        self._skills_fresh = False  # its stored prompt: a later rebuild reads skills anew
        row = self.store.get_session(self.store.resolve_session_id(session_id))
        if row is None:  # deleted between the two reads
            raise ConfigError(f"session {session_id} no longer exists",
                              "`hermes sessions list` shows the stored sessions")
        choices = defaults.restored(row)
        model, provider = choices.model, choices.provider
        stable = row["system_prompt"]
        layout = decode(row.get("stable_layout"))
        if row["model"] != model or row["provider"] != provider:
            old, stable = stable, with_model(stable, model, provider)
            layout = relayout(layout, old, stable)
            self.store.update_session(row["id"], model=model, provider=provider,
                                      system_prompt=stable, stable_layout=encode(layout))
            self.notices.append(Notice(
                f"Resumed with {model} ({provider}) instead of {row['model']} "
                f"({row['provider']}): the system prompt names the model, so it was rebuilt and "
                "the first call writes the cache anew (the cache is per model anyway).", "warning"))
        stored_ephemeral = row.get("ephemeral_prompt") or ""
        ephemeral = self.ephemeral(choices.system)
        if not self.config.skills and not choices.system:
            ephemeral = stored_ephemeral
        elif ephemeral != stored_ephemeral:
            self.store.update_session(row["id"], ephemeral_prompt=ephemeral)
            self.notices.append(Notice(
                "The preloaded skills / instructions differ from the stored session's: the "
                "first call re-writes the cache after the stable system prompt.", "warning"))
        if list(row.get("tools") or []) != choices.tool_names:
            self.notices.append(Notice(
                "This session was stored with a different tool set; the first call re-sends "
                "the whole prompt uncached.", "warning"))
        if choices.api != defaults.api:
            self.notices.append(Notice(
                f"This session keeps {choices.api_name}, its stored wire format; config.yaml's "
                f"`openai.api` ({defaults.api_name}) applies to new sessions (hermes without "
                "--resume).", "info"))
        if row.get("choices") != choices.stored():
            self.store.update_session(row["id"], choices=choices.stored())
        conversation = Conversation(self.store, row["id"])
        conversation.load()
        messages = repaired(conversation.messages)  # the view requests index
        calls = CallState.resumed(self.store.usage_rows(row["id"]), len(messages),
                                  bool(messages) and messages[-1].role == "assistant", model,
                                  provider)
        return Session(row["id"], choices, stable, ephemeral, conversation, calls,
                       parent_id=row.get("parent_id"), layout=layout)

    # -- the session's choices: the only writer of Session.choices -----------------------
    def _choose(self, session: Session, **fields: object) -> None:
        session.choices = replace(session.choices, **fields)  # type: ignore[arg-type]
        if self.store is not None:
            self.store.update_session(session.id, choices=session.choices.stored())

    def switch_model(self, session: Session, model: str, provider: str | None = None) -> None:
        """/model: only the environment section's model line changes; each model's last
        write position is kept (CallState), so switching back reads that model's entry.
        With another `provider` (one this installation has a key for) the session talks
        to it from the next call on, over its wire API; the row keeps both, so a resume
        or a gateway rebuild goes on there."""
        provider = provider or session.provider
        fields: dict[str, object] = {"model": model}
        settings = None
        if provider != session.provider:
            settings = self.config.settings_for(provider)
            if settings is None:  # the front end decides; this is its bug, not the user's
                raise ConfigError(f"no settings for provider {provider}")
            fields.update(provider=provider, api=api_of(settings))
        self._choose(session, **fields)
        old, session.stable = session.stable, with_model(session.stable, model, provider)
        session.layout = relayout(session.layout, old, session.stable)
        if session.inputs is not None:  # a later /personality rebuild must name this model
            env = replace(session.inputs.env, model=model, provider=provider)
            session.inputs = replace(session.inputs, env=env)
        if self.store is not None:
            where = {} if settings is None else {"provider": provider,
                                                  "base_url": settings.base_url}
            self.store.update_session(session.id, model=model, system_prompt=session.stable,
                                      stable_layout=encode(session.layout), **where)

    def set_personality(self, session: Session, name: str | None, text: str | None) -> None:
        """/personality: the stable layer rebuilt (a resumed session re-gathers its
        inputs: the frozen inputs of its original build are not stored)."""
        self._choose(session, personality=name, personality_text=text)
        inputs = session.inputs or self.gather(session.id, session.choices)
        session.inputs = replace(inputs, personality=text)
        session.stable, session.layout = self.build(session.inputs)
        session.calls.reset_cache_chain()
        if self.store is not None:
            self.store.update_session(session.id, personality=name, system_prompt=session.stable,
                                      stable_layout=encode(session.layout))

    def set_reasoning(self, session: Session, reasoning: Reasoning) -> None:
        """/reasoning: request parameters only (no prompt text changes)."""
        self._choose(session, reasoning=reasoning)

    def set_mode(self, session: Session, mode: str) -> None:
        """/plan: the session's mode (request text only: a note in the next user
        message, agent/permissions/plan.py; the prompt and tools stay)."""
        self._choose(session, mode=mode)

    def set_tools(self, session: Session, tools: tuple[ToolSchema, ...]) -> None:
        """The MCP tools frozen or reloaded (their names are stored by agent.mcp.hooks)."""
        self._choose(session, tools=tools)

    def set_system(self, session: Session, system: str) -> None:
        """A client's new extra system text: the ephemeral layer rebuilt (the stable
        layer, and its cache, stay)."""
        self._choose(session, system=system)
        session.ephemeral = self.ephemeral(system)
        if self.store is not None:
            self.store.update_session(session.id, ephemeral_prompt=session.ephemeral)


def with_model(stable: str, model: str, provider: str) -> str:
    """The stable text with only the environment section's model line replaced (a
    "Model:" line in SOUL.md or a context file above it is left alone)."""
    start = stable.rfind(ENV_HEADER)
    head, tail = (stable, "") if start < 0 else (stable[:start], stable[start:])
    if not tail:
        return stable
    line = f"Model: {model} ({provider})"
    return head + _MODEL_LINE.sub(lambda _match: line, tail, count=1)


def pinned(env: EnvFacts, pin: tuple[str, str] | None) -> EnvFacts:
    """The environment facts of a scheduled job's run: the job's fixed start and name in
    place of the run's own (`AgentConfig.pinned_env`); the run's time goes in its message."""
    return env if pin is None else replace(env, started=pin[0], session_id=pin[1])
