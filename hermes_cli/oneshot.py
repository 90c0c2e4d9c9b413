"""`hermes -q "text"`: one turn, the answer on stdout, progress on stderr."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent.events import Done, ErrorEvent, Notice, ToolFinished, ToolStarted, UsageEvent
from agent.usage import ZERO
from hermes_cli.setup import Flags, agent_config, load_settings, open_store


def resolve_resume(store, resume: str | None, cont: bool, source: str = "cli") -> str | None:
    """The session id to resume (None: start a new one)."""
    from agent.errors import ConfigError

    if resume:
        return store.resolve_session_id(resume)
    if cont:
        row = store.latest_session(source=source)
        if row is None:
            raise ConfigError("no session to continue yet", "start one with `hermes` or `hermes -q`")
        return row["id"]
    return None


def build_agent(flags: Flags, *, resume: str | None, cont: bool, approve=None, preview: bool = False):
    """Settings -> config -> store -> AIAgent (raises user-facing errors).

    `preview`: build the prompt without a store (nothing is saved)."""
    from agent.agent import AIAgent

    settings = load_settings()
    for warning in settings.warnings:
        sys.stderr.write(f"hermes: warning: {warning}\n")
    config = agent_config(settings, flags, Path.cwd())
    if preview:
        return AIAgent(config, None)
    store = open_store(settings)
    session_id = resolve_resume(store, resume, cont)
    agent = AIAgent(config, store, session_id=session_id, approve=approve)
    return agent


def run_oneshot(text: str, flags: Flags, *, resume: str | None, cont: bool, json_out: bool) -> int:
    """Run one turn; return the exit code."""
    agent = build_agent(flags, resume=resume, cont=cont)
    for notice in agent.startup_notices:
        sys.stderr.write(f"hermes: {notice.level}: {notice.text}\n")
    usage, cost, cost_known, answer, error = ZERO, 0.0, True, "", None
    try:
        for event in agent.run_turn(text):
            if isinstance(event, UsageEvent):
                usage = usage + event.usage
                if event.cost_usd is None:
                    cost_known = False
                else:
                    cost += event.cost_usd
            elif isinstance(event, ToolStarted):
                sys.stderr.write(f"  -> {event.name} {event.summary}\n")
            elif isinstance(event, ToolFinished):
                status = "ok" if event.ok else "failed"
                sys.stderr.write(f"  <- {event.name} {status} ({event.duration:.2f}s)\n")
            elif isinstance(event, Notice):
                sys.stderr.write(f"hermes: {event.level}: {event.text}\n")
            elif isinstance(event, ErrorEvent):
                error = event
            elif isinstance(event, Done):
                answer = event.answer
    finally:
        agent.close()
    if error is not None:
        sys.stderr.write(f"hermes: error: {error.message}\n")
        if error.hint:
            sys.stderr.write(f"  hint: {error.hint}\n")
    if json_out:
        hit = usage.hit_rate
        payload = {
            "session_id": agent.session_id,
            "answer": answer,
            "error": None if error is None else error.message,
            "usage": {
                "uncached_input": usage.uncached,
                "cache_write": usage.cache_write,
                "cache_read": usage.cache_read if usage.cache_known else None,
                "output": usage.output,
                "calls": usage.calls,
                "cost_usd": round(cost, 8) if cost_known and usage.calls else (0.0 if cost_known else None),
                "hit_rate": None if hit is None else round(hit, 6),
            },
        }
        sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    elif answer:
        sys.stdout.write(answer.rstrip("\n") + "\n")
    sys.stdout.flush()
    return 1 if error is not None else 0
