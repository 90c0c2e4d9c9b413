"""AgentCache: one long-lived AIAgent per session key, rebuilt only when its config
signature changes.

Why: an agent holds the session's frozen system prompt and tool schemas. Building a new
one per message would rebuild the prompt (re-reading memory) and break the provider's
prefix cache. So a front end serving many sessions (the gateway) keeps each session's
agent and reuses it while its **signature** is unchanged: a SHA-256 over canonical
JSON of `AgentConfig.signature_fields()` (installation settings only), the SHA-256 of
the whole provider API key (never a prefix: many tokens share one) and the API mode.
A session's choices (model, personality, reasoning, system text) are not part of it:
they are the session's own (agent/sessions/choices.py), changed in place and stored with it, so
a rebuilt agent restores them. Per-message settings (reasoning effort, callbacks,
streaming, the cancel token) are not part of it either.

A changed signature closes the old agent and builds a new one that resumes the same
stored session, so the stored system prompt is reused byte for byte. Bounded by an LRU
cap and an idle TTL; an agent in the middle of a turn (`busy`) or leased (`lease`) is
never evicted. Thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from agent.agent import AIAgent
from agent.config import AgentConfig, signature

__all__ = ["AgentCache", "Factory", "signature"]

#: factory(config, session_id) -> agent; session_id None = start a new session,
#: otherwise resume that stored session.
Factory = Callable[[AgentConfig, str | None], AIAgent]


@dataclass
class _Entry:
    agent: AIAgent
    signature: str
    last_used: float
    config: AgentConfig
    leases: int = 0

    @property
    def evictable(self) -> bool:
        return self.leases == 0 and not self.agent.busy


class AgentCache:
    """session_key -> (agent, signature, last_used), LRU-capped with an idle TTL."""

    def __init__(self, factory: Factory, *, max_size: int = 128, idle_ttl: float = 3600.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if max_size < 1:
            raise ValueError("max_size must be at least 1")
        self.factory = factory
        self.max_size = max_size
        self.idle_ttl = idle_ttl
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self.builds = 0  # agents built (for stats and tests)
        self.evictions = 0  # agents closed by the cap, the TTL or evict()

    # -- lookups -----------------------------------------------------------------------
    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def __contains__(self, session_key: object) -> bool:
        with self._lock:
            return session_key in self._entries

    def peek(self, session_key: str) -> AIAgent | None:
        """The cached agent without touching LRU order (None when not cached)."""
        with self._lock:
            entry = self._entries.get(session_key)
            return entry.agent if entry else None

    def signature_of(self, session_key: str) -> str | None:
        with self._lock:
            entry = self._entries.get(session_key)
            return entry.signature if entry else None

    # -- get / build -------------------------------------------------------------------
    def get(self, session_key: str, config: AgentConfig, *, session_id: str | None = None) -> AIAgent:
        """The session's agent for `config`: reused when the signature matches, else the
        old one is closed and a new one built (resuming the old one's stored session, or
        `session_id` when nothing was cached; None starts a new session)."""
        return self._acquire(session_key, config, session_id, lease=False).agent

    @contextmanager
    def lease(self, session_key: str, config: AgentConfig, *,
              session_id: str | None = None) -> Iterator[AIAgent]:
        """Like `get`, but the agent cannot be evicted until the block ends. If it was
        evicted or replaced meanwhile (`evict`), it is closed when the block ends."""
        entry = self._acquire(session_key, config, session_id, lease=True)
        try:
            yield entry.agent
        finally:
            with self._lock:
                entry.leases -= 1
                cached = self._entries.get(session_key) is entry
                if cached:
                    entry.last_used = self.clock()
                    self._entries.move_to_end(session_key)
            orphan = [entry.agent] if not cached and entry.evictable else []
            self._close(orphan + self._collect())

    def _acquire(self, key: str, config: AgentConfig, session_id: str | None, *,
                 lease: bool) -> _Entry:
        sig = signature(config, config.provider.api_key)
        stale: list[AIAgent] = []
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry.signature == sig:
                return self._touch(key, entry, lease)
            if entry is not None:
                if not entry.evictable:
                    raise RuntimeError(f"session {key!r} is in the middle of a turn")
                del self._entries[key]
                session_id = entry.agent.session_id
                stale.append(entry.agent)
        self._close(stale)  # close before resuming: the old agent's resources go first
        agent = self.factory(config, session_id)
        with self._lock:
            self.builds += 1
            entry = self._entries.get(key)
            if entry is not None and entry.signature == sig:
                stale = [agent]  # built concurrently by another caller: keep theirs
                result = self._touch(key, entry, lease)
            else:
                stale = []
                if entry is not None:  # another config won the race meanwhile: replace it
                    self.evictions += 1
                    if entry.evictable:  # a leased one is closed when its lease ends
                        stale = [entry.agent]
                entry = _Entry(agent, sig, self.clock(), config)
                self._entries[key] = entry
                result = self._touch(key, entry, lease)
        self._close(stale + self._collect())
        return result

    def _touch(self, key: str, entry: _Entry, lease: bool) -> _Entry:
        entry.last_used = self.clock()
        if lease:
            entry.leases += 1
        self._entries.move_to_end(key)
        return entry

    def holding(self, session_key: str, agent: AIAgent) -> Callable[[], bool]:
        """A check that `agent` is still the session's cached agent (for the keeper)."""
        def check() -> bool:
            with self._lock:
                entry = self._entries.get(session_key)
                return entry is not None and entry.agent is agent
        return check

    # -- eviction ----------------------------------------------------------------------
    def evict(self, session_key: str) -> bool:
        """Drop and close the session's agent (e.g. /new, /model, after a fallback).

        Returns False when nothing was cached. A leased or busy agent is dropped from the
        cache (the next `get` builds anew) but never closed mid-turn: a leased one is
        closed when its lease ends."""
        with self._lock:
            entry = self._entries.pop(session_key, None)
            if entry is None:
                return False
            self.evictions += 1
        if entry.evictable:
            self._close([entry.agent])
        return True

    def sweep(self) -> int:
        """Evict idle agents now; returns how many were closed."""
        stale = self._collect()
        self._close(stale)
        return len(stale)

    def close(self) -> None:
        """Close every cached agent (server shutdown)."""
        with self._lock:
            agents = [e.agent for e in self._entries.values()]
            self._entries.clear()
        self._close(agents)

    def _collect(self) -> list[AIAgent]:
        """Remove idle and over-cap entries (oldest first, skipping busy/leased ones)."""
        now = self.clock()
        out: list[AIAgent] = []
        with self._lock:
            for key in list(self._entries):
                entry = self._entries[key]
                too_many = len(self._entries) > self.max_size
                idle = now - entry.last_used > self.idle_ttl
                if not (too_many or idle):
                    break  # LRU order: everything after this is newer
                if entry.evictable:
                    del self._entries[key]
                    out.append(entry.agent)
            self.evictions += len(out)
        return out

    @staticmethod
    def _close(agents: list[AIAgent]) -> None:
        for agent in agents:
            agent.close()

