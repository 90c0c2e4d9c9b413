"""`hermes -q "text"`: one turn, the answer on stdout, progress on stderr."""

from __future__ import annotations

import json
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from agent.errors import HermesError
from agent.events import ErrorEvent, Notice, ToolFinished, ToolStarted
from frontend.budget_text import stopped_by
from frontend.factory import build_agent
from frontend.outcome import TurnOutcome
from frontend.setup import Flags
from hermes_cli.oneshot_output import Stream, result_object
from memory.errors import HermesMemoryError

# Function-level imports below: one-shot loads stdin handling, images and the agent when
# it runs (start-up speed of every other command).

class Stopped(Exception):  # noqa: N818 - a signal, not a failure
    """SIGINT / SIGTERM before the turn started (stdin, start-up, images)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@dataclass
class Signals:
    """What `interruptible` received, and where the run is (`phase`)."""

    received: list[int] = field(default_factory=list)
    phase: str = "start"  # "start" | "turn" | "after"


@contextmanager
def interruptible(cancel) -> Iterator[Signals]:
    """SIGINT / SIGTERM for the whole one-shot run. Before the turn (stdin, start-up,
    images) the first one raises Stopped; during the turn it cancels it (the stream is
    cut, a running command is killed, the history is closed and saved) and a second one
    stops at once; after it (saving, output) it is noted. Either way the exit code is
    128 + the signal: 130 for SIGINT, 143 for SIGTERM, as shells expect."""
    signals = Signals()

    def handler(signum: int, _frame: object) -> None:
        signals.received.append(signum)
        if signals.phase == "start":
            raise Stopped(signum)
        if signals.phase == "after":
            return
        if len(signals.received) == 1:
            # not cancel() here: it takes a lock the interrupted code may be holding
            try:
                threading.Thread(target=cancel.cancel, name="hermes-cancel", daemon=True).start()
                return
            except RuntimeError:  # no thread can start: stop at once, as a second signal does
                pass
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        else:
            raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        yield signals
        return
    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield signals
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def progress(event: object) -> None:
    """Tool progress and notices to stderr (the answer goes to stdout)."""
    if isinstance(event, ToolStarted):
        sys.stderr.write(f"  -> {event.name} {event.summary}\n")
    elif isinstance(event, ToolFinished):
        status = "ok" if event.ok else "failed"
        why = f": {event.summary}" if not event.ok and event.summary else ""  # refusals say why
        sys.stderr.write(f"  <- {event.name} {status} ({event.duration:.2f}s){why}\n")
    elif isinstance(event, Notice):
        sys.stderr.write(f"hermes: {event.level}: {event.text}\n")


def _error_line(error: ErrorEvent, level: str = "error") -> None:
    sys.stderr.write(f"hermes: {level}: {error.message}\n")
    if error.hint:
        sys.stderr.write(f"  hint: {error.hint}\n")


def with_stdin(text: str, stream=None) -> str:
    """The one-shot message: `text`, plus what was piped to stdin (hermes_cli/stdin_input.py)."""
    from frontend.mentions import piped
    from hermes_cli.stdin_input import STDIN_WAIT, read_piped

    got = read_piped(sys.stdin if stream is None else stream)
    if got.silent:
        sys.stderr.write(f"hermes: note: stdin is not a terminal and sent nothing in "
                         f"{STDIN_WAIT:g} s; running without it (use </dev/null to skip this "
                         "wait)\n")
    return piped(text, got.data).text


def attached(agent, paths: list[str]) -> tuple[Any, ...]:
    """The `--image` files as the session's model takes them (scaled once, a note each
    on stderr); ImageError / MentionError (one line) when one cannot be."""
    from pathlib import Path

    from frontend.mentions import read_image

    images = []
    for path in paths:
        name, data = read_image(path, Path.cwd())
        prepared = agent.attach_image(data, name)
        sys.stderr.write(f"hermes: image: {prepared.note()}\n")
        images.append(prepared.image)
    return tuple(images)


def run_oneshot(text: str, flags: Flags, *, resume: str | None, cont: bool,  # noqa: PLR0913
                output: str = "text", images: list[str] | None = None) -> int:
    """Run one turn (with `images`: paths given to --image) writing `output`
    (argv_checks.OUTPUT_FORMATS) on stdout; return the exit code."""
    from agent.cancel import CancelToken
    from agent.errors import ConfigError

    if not text.strip():
        raise ConfigError("the question given to -q is empty",
                          'put the text after -q, e.g. hermes -q "what does this repo do?"')
    outcome, cancel = TurnOutcome(), CancelToken()
    stream = Stream() if output == "stream-json" else None
    with interruptible(cancel) as signals:
        try:
            agent, report = _turn(text, flags, resume, cont, images, cancel, outcome, signals,
                                  stream)
        except Stopped as stop:
            name = signal.Signals(stop.signum).name
            error = ErrorEvent(f"interrupted by {name} before the question was sent",
                               "nothing was sent to the model; run the command again")
            _error_line(error)
            _unstarted(output, stream, error)
            return 128 + stop.signum
        except (HermesError, HermesMemoryError) as exc:  # said on stderr by app.main
            _unstarted(output, stream, ErrorEvent(exc.message))
            raise
        return _finish(agent, outcome, signals.received, output, report, stream)


def _unstarted(output: str, stream: Stream | None, error: ErrorEvent) -> None:
    """json and stream-json end in a result even when the turn never started (a bad
    setting, a refused image, a signal), so a script always reads one."""
    if output == "text":
        return
    result = result_object(TurnOutcome(), None, error, None, None)
    if stream is not None:
        stream.line("result", **result)
    else:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _turn(text: str, flags: Flags, resume: str | None, cont: bool,  # noqa: PLR0913
          images: list[str] | None, cancel, outcome: TurnOutcome, signals: Signals,
          stream: Stream | None):
    """Start up, attach, run the turn; the agent (closed) and its usage report (None
    without a store or a call). Stopped before the turn."""
    from agent.agent import settle  # lazy: the agent loads when a one-shot runs

    text = with_stdin(text)
    agent = build_agent(flags, resume=resume, cont=cont, source="oneshot")
    report = None
    from hermes_cli.commands.bg import announce

    announce(agent)  # a detached run (--bg, /bg): recorded, its id sent to who started it
    try:
        for notice in agent.startup_notices:
            sys.stderr.write(f"hermes: {notice.level}: {notice.text}\n")
        if stream is not None:
            stream.start(agent)
        pictures = attached(agent, images or [])
        signals.phase = "turn"
        for event in agent.run_turn(text, cancel, images=pictures):
            progress(event)
            outcome.feed(event)
            if stream is not None:
                stream.event(event)
        for event in settle(agent):  # a cache resource's storage to its deletion (Gemini)
            outcome.feed(event)
        report = _report(agent, outcome)
    finally:
        signals.phase = "after"  # a signal while saving is noted, not raised
        agent.discard_if_empty()  # nothing was sent (a bad --image): no empty session left
        agent.close()
    return agent, report


def _report(agent, outcome: TurnOutcome):
    """The session's usage report (json's misses, storage and session totals)."""
    from frontend.commands import session_report

    if agent.store is None or not outcome.usage.calls:
        return None
    return session_report(agent)


def _finish(agent, outcome: TurnOutcome, received: list[int], output: str,  # noqa: PLR0913
            report, stream: Stream | None) -> int:
    """The answer (or error) out; the exit code."""
    error = outcome.error
    if received:
        error = ErrorEvent(
            f"interrupted by {signal.Signals(received[0]).name}; the session is saved",
            f"resume it with `hermes --resume {agent.session_id}` (or `hermes -c`)")
    if error is not None and not error.hint and "timed out" in error.message:
        seconds = agent.config.provider.timeout
        error = ErrorEvent(
            error.message,
            f"the provider sent nothing for {seconds:g} s; set `timeout:` (seconds) in "
            f"{agent.config.home / 'config.yaml'} to wait longer or give up sooner")
    for warning in outcome.warnings:  # the turn recovered from these and answered
        _error_line(warning, "warning")
    if outcome.reason.startswith("budget_"):
        _error_line(ErrorEvent(stopped_by(outcome.reason, agent.budget.status())), "warning")
    if error is not None:
        _error_line(error)
    if output != "text":
        budget = agent.budget.status() if agent.config.budget.any else None
        result = result_object(outcome, agent.session_id, error, budget, report)
        if stream is not None:
            stream.line("result", **result)
        else:
            sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    elif outcome.answer:
        sys.stdout.write(outcome.answer.rstrip("\n") + "\n")
    sys.stdout.flush()
    if received:
        return 128 + received[0]  # 130 for SIGINT, 143 for SIGTERM, as shells expect
    return 1 if error is not None else 0
