"""Background runs as the store records them, for every process: `hermes ps`, `hermes
logs`, the REPL's "finished" line.

A background run is a stored session of source "background" driven by a detached
`hermes -q` process (hermes_cli/commands/bg.py starts it). Its state lives in the
session row, so any process sees it: `ended` is false while it runs (its row changed less
than START_WAIT ago, or its process holds the session's lock, memory/locks.py) and true once
its process ended: done when its last message is an answer, else failed. A row not ended
whose lock nobody holds belongs to a process that died: failed. `/bg` forks the current
session first (memory/session_fork.py), so the run starts from this conversation and
its first request reads this session's cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from agent.sessions.session import new_session_id
from agent.usage import usd
from memory.session_fork import fork_session

if TYPE_CHECKING:
    from agent.agent import AIAgent

SOURCE = "background"
START_WAIT = 120.0  # seconds a run may take to open its session before it counts as failed


@dataclass(frozen=True)
class RunState:
    id: str
    state: str  # running | done | failed
    age: float  # seconds since it started
    cost: float | None
    title: str

    @property
    def cost_text(self) -> str:
        return "cost unknown" if self.cost is None else f"cost {usd(self.cost)}"


def _state(store: Any, row: dict[str, Any]) -> str:
    if row.get("ended"):
        return "done" if _answered(store, row["id"]) else "failed"
    if _age(row.get("updated") or row["created"]) < START_WAIT:
        # starting, or busy: not probed, so the probe never takes the lock at the moment
        # a starting run claims it (which would stop that run)
        return "running"
    lock = store.lock_session(row["id"], purpose="hermes ps")
    if lock.try_acquire() is not None:  # held by the run's process
        return "running"
    lock.release()
    return "failed"  # nobody drives it: the process ended without saying so


def _answered(store: Any, session_id: str) -> bool:
    """Whether the run's last message is an answer (not a question, a tool or an error)."""
    messages = store.messages(session_id)
    return bool(messages) and messages[-1]["role"] == "assistant" and bool(
        str(messages[-1].get("content") or "").strip())


def _age(created: str) -> float:
    try:
        start = datetime.fromisoformat(str(created).replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return max(0.0, time.time() - start.timestamp())


def runs(store: Any, limit: int = 50) -> list[RunState]:
    """The background runs, newest first."""
    return [RunState(row["id"], _state(store, row), _age(row["created"]),
                     row.get("total_cost_usd"), str(row.get("title") or row.get("preview") or ""))
            for row in store.list_sessions(limit=limit, source=SOURCE)]


def run_state(store: Any, session_id: str) -> RunState:
    row = store.get_session(session_id)
    if row is None:
        return RunState(session_id, "failed", 0.0, None, "")
    cost = sum(r.get("total_cost_usd") or 0.0 for r in store.list_sessions(limit=200, source=SOURCE)
               if r["id"] == session_id)
    return RunState(session_id, _state(store, row), _age(row["created"]), cost,
                    str(row.get("title") or ""))


def mark_starting(store: Any, session_id: str) -> None:
    store.update_session(session_id, source=SOURCE, ended=False)


def mark_ended(store: Any, session_id: str) -> None:
    store.update_session(session_id, ended=True)


def fork(agent: AIAgent) -> str:
    """A copy of the agent's session (its stored bytes) for a background run; its id."""
    assert agent.store is not None
    new_id = new_session_id()
    fork_session(agent.store, agent.session_id, new_id, source=SOURCE)
    mark_starting(agent.store, new_id)
    return new_id
