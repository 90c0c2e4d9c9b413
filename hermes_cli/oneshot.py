"""`hermes -q "text"`: one turn, the answer on stdout, progress on stderr."""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent.events import Done, ErrorEvent, Notice, ToolFinished, ToolStarted, UsageEvent
from agent.usage import ZERO, Usage
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
    from agent.context import context_problems
    from hermes_cli.session_claim import claim_session
    from memory.notes import Notes

    settings = load_settings()
    for warning in (settings.warnings + Notes(settings.home).problems()
                    + context_problems(settings.home, current_dir())):
        sys.stderr.write(f"hermes: warning: {warning}\n")
    if preview:
        config = agent_config(settings, flags, current_dir())
        check_skills(settings.home, config.skills)
        return AIAgent(config, None)
    store = open_store(settings)
    session_id = resolve_resume(store, resume, cont)
    if session_id is not None:
        flags = session_flags(flags, store.get_session(session_id) or {})
    claim_session(store, session_id)  # before the history is read: one process per session
    config = agent_config(settings, flags, current_dir())
    check_skills(settings.home, config.skills)
    agent = AIAgent(config, store, session_id=session_id, approve=approve)
    claim_session(store, agent.session_id)  # a new session: its fresh id
    return agent


def session_flags(flags: Flags, row: dict) -> Flags:
    """A resumed session keeps its own provider and model unless a flag names another
    (the stored prompt names the model; a silent switch would rebuild it and miss)."""
    from dataclasses import replace

    if flags.provider is None and flags.model is None and row.get("provider"):
        return replace(flags, provider=row["provider"], model=row.get("model"))
    if flags.model is None and flags.provider in (None, row.get("provider")):
        return replace(flags, model=row.get("model"))
    return flags


def current_dir() -> Path:
    """The working directory, or a clear error when it was deleted under us."""
    from agent.errors import ConfigError

    try:
        return Path.cwd()
    except FileNotFoundError:
        raise ConfigError("the current directory no longer exists",
                          "cd into an existing directory and run hermes again") from None


def check_skills(home: Path, names: tuple[str, ...]) -> None:
    """A skill asked for by name that exists but is broken: say why, not "unknown"."""
    if not names:
        return
    from agent.errors import ConfigError
    from skills.loader import discover

    catalog = discover(home)
    for name in names:
        why = catalog.problem(name)
        if why:
            raise ConfigError(f"skill '{name}' is broken, so it cannot be preloaded: {why}",
                              "fix that SKILL.md (`hermes skills list` shows every problem), "
                              "or leave the skill out")


@contextmanager
def interruptible(cancel) -> Iterator[list[int]]:
    """SIGINT / SIGTERM during the turn: the first one cancels it (the stream is cut,
    a running command is killed, the history is closed and saved); a second one stops
    at once. Yields the list of signals received."""
    received: list[int] = []

    def handler(signum: int, _frame: object) -> None:
        received.append(signum)
        if len(received) == 1:
            # not cancel() here: it takes a lock the interrupted code may be holding
            threading.Thread(target=cancel.cancel, name="hermes-cancel", daemon=True).start()
        elif signum == signal.SIGINT:
            raise KeyboardInterrupt
        else:
            raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield received
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@dataclass
class _Outcome:
    """What one turn produced, gathered from its events."""

    usage: Usage = ZERO
    cost: float = 0.0
    cost_known: bool = True
    answer: str = ""
    error: ErrorEvent | None = None

    def feed(self, event: object) -> None:
        """Take one event: progress goes to stderr, the rest is remembered."""
        if isinstance(event, UsageEvent):
            self.usage = self.usage + event.usage
            if event.cost_usd is None:
                self.cost_known = False
            else:
                self.cost += event.cost_usd
        elif isinstance(event, ToolStarted):
            sys.stderr.write(f"  -> {event.name} {event.summary}\n")
        elif isinstance(event, ToolFinished):
            status = "ok" if event.ok else "failed"
            sys.stderr.write(f"  <- {event.name} {status} ({event.duration:.2f}s)\n")
        elif isinstance(event, Notice):
            sys.stderr.write(f"hermes: {event.level}: {event.text}\n")
        elif isinstance(event, ErrorEvent):
            self.error = event
        elif isinstance(event, Done):
            self.answer = event.answer

    def payload(self, session_id: str) -> dict:
        """The --json object."""
        usage, hit = self.usage, self.usage.hit_rate
        cost = self.cost if self.cost_known else None
        return {
            "session_id": session_id,
            "answer": self.answer,
            "error": None if self.error is None else self.error.message,
            "usage": {
                "uncached_input": usage.uncached,
                "cache_write": usage.cache_write if usage.cache_known else None,
                "cache_read": usage.cache_read if usage.cache_known else None,
                "output": usage.output,
                "calls": usage.calls,
                "cost_usd": None if cost is None else (round(cost, 8) if usage.calls else 0.0),
                "hit_rate": None if hit is None else round(hit, 6),
            },
        }


def run_oneshot(text: str, flags: Flags, *, resume: str | None, cont: bool, json_out: bool) -> int:
    """Run one turn; return the exit code."""
    from agent.cancel import CancelToken
    from agent.errors import ConfigError

    if not text.strip():
        raise ConfigError("the question given to -q is empty",
                          'put the text after -q, e.g. hermes -q "what does this repo do?"')
    agent = build_agent(flags, resume=resume, cont=cont)
    for notice in agent.startup_notices:
        sys.stderr.write(f"hermes: {notice.level}: {notice.text}\n")
    outcome, cancel = _Outcome(), CancelToken()
    try:
        with interruptible(cancel) as received:
            for event in agent.run_turn(text, cancel):
                outcome.feed(event)
    finally:
        agent.close()
    if received:
        outcome.error = ErrorEvent(
            f"interrupted by {signal.Signals(received[0]).name}; the session is saved",
            f"resume it with `hermes --resume {agent.session_id}` (or `hermes -c`)")
    if outcome.error is not None and not outcome.error.hint and "timed out" in outcome.error.message:
        seconds = agent.config.provider.timeout
        outcome.error = ErrorEvent(
            outcome.error.message,
            f"the provider sent nothing for {seconds:g} s; set `timeout:` (seconds) in "
            f"{agent.config.home / 'config.yaml'} to wait longer or give up sooner")
    if outcome.error is not None:
        sys.stderr.write(f"hermes: error: {outcome.error.message}\n")
        if outcome.error.hint:
            sys.stderr.write(f"  hint: {outcome.error.hint}\n")
    if json_out:
        sys.stdout.write(json.dumps(outcome.payload(agent.session_id), ensure_ascii=False) + "\n")
    elif outcome.answer:
        sys.stdout.write(outcome.answer.rstrip("\n") + "\n")
    sys.stdout.flush()
    if received:
        return 128 + received[0]  # 130 for SIGINT, 143 for SIGTERM, as shells expect
    return 1 if outcome.error is not None else 0
