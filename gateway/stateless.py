"""Stateless clients: a request that names no session (no X-Hermes-Session-Id, no `user`)
is matched to its session by the conversation it carries (gateway/transcripts.py).

- The longest stored state of the same key that the client's history starts with, if it
  is its session's latest state: continue that session (same name, same cached agent,
  same prompt bytes: a cache hit). Messages the client has beyond that state (answered
  elsewhere) are appended first, as real messages.
- A match on an older state (the client edited or truncated its history): a new branch,
  a new stored session whose system prompt is the parent's stored bytes (so its first
  request reads the parent's cached system prompt), with the parent's route choices
  (model, system text, personality), seeded with the client's history.
- No match (a new chat, or history we never answered): a new session seeded with the
  client's history.

Seeding puts the client's history into the session as real user/assistant messages,
not as text in the system prompt or in one user message: the next request of the same
client then only appends (history + our answer + its new message) and reads the cache,
and the model sees who said what. Nothing of another key is ever read: the index is
keyed by owner, and a parent is used only if the store says it is the same owner's.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace

from agent.messages import Message
from agent.sessions.session import new_session_id
from gateway.routes import Route, RouteTable
from gateway.transcripts import TranscriptIndex, Turn
from memory.store import SessionStore


@dataclass(frozen=True)
class Plan:
    """How a stateless request joins its session (decided before the session lock)."""

    history: tuple[Turn, ...]  # the client's visible messages before its new one
    seed: tuple[Turn, ...]  # appended to the session as real messages before the turn
    fork_of: str | None = None  # stored session whose system bytes a branch reuses
    parent_name: str | None = None  # its route (model, system text, personality)


def new_name() -> str:
    return "session-" + secrets.token_hex(8)


def plan(index: TranscriptIndex | None, owner: str,
         history: tuple[Turn, ...]) -> tuple[str, Plan]:
    """(session name, plan) for a request of `owner` carrying `history`."""
    match = index.longest(owner, history) if index is not None else None
    if match is not None and match.tip:
        return match.name, Plan(history, history[match.length:])
    if match is not None:
        return new_name(), Plan(history, history, match.session_id, match.name)
    return new_name(), Plan(history, history)


def prepare(store: SessionStore, routes: RouteTable, index: TranscriptIndex | None,  # noqa: PLR0913
            route: Route, chosen: Plan) -> tuple[Route, Plan]:
    """The route and plan the turn runs with, decided under the session's lock (in the
    worker thread): a session moved on by another request since the plan was made (two
    requests with the same history at once) is branched from instead of continued; a
    branch gets its stored session (the parent's system bytes) and route."""
    if chosen.fork_of is None and route.session_id is not None and index is not None:
        expected = len(chosen.history) - len(chosen.seed)
        if index.tip(route.owner, route.name) != expected:
            chosen = replace(chosen, seed=chosen.history, fork_of=route.session_id,
                             parent_name=route.name)
            route = Route(route.owner, new_name())
    if chosen.fork_of is None or route.session_id is not None:
        return route, chosen
    parent = store.get_session(chosen.fork_of)
    if parent is None or parent.get("owner") != route.owner:  # deleted meanwhile
        return route, chosen
    session_id = new_session_id()
    store.create_session(
        session_id, model=parent["model"], provider=parent["provider"],
        system_prompt=parent["system_prompt"], base_url=parent.get("base_url"),
        personality=parent.get("personality"), cwd=parent.get("cwd"),
        ephemeral_prompt=parent.get("ephemeral_prompt") or "",
        tools=parent.get("tools") or (), toolsets=parent.get("toolsets") or (),
        parent_id=parent["id"], source="gateway", owner=route.owner)
    # the same system blocks, tool bytes and choices as the parent: where its text is cut
    # into shared blocks (agent.prompts.prefix), the MCP tools it froze, its reasoning and the rest
    carried = {k: parent[k] for k in ("stable_layout", "mcp_tools", "choices") if parent.get(k)}
    if carried:
        store.update_session(session_id, **carried)
    branch = Route(route.owner, route.name, session_id)
    routes.put(branch)
    return branch, chosen


def seed(conversation_append, chosen: Plan) -> None:
    """Append the client's messages the session does not have yet (real messages)."""
    for role, text in chosen.seed:
        conversation_append(Message("assistant" if role == "assistant" else "user", text))


def record(index: TranscriptIndex | None, route: Route, session_id: str, chosen: Plan,
           text: str, answer: str) -> None:
    """Index the session's visible transcript after a turn the client saw answered."""
    if index is not None and session_id:
        index.record(route.owner, route.name, session_id,
                     [*chosen.history, ("user", text), ("assistant", answer)])
