"""The REPL's side of work without typing (frontend/autonomy): a /goal's turns, a /loop's
timer, and the news of background runs started here (/bg).

A /goal runs in the foreground, turn after turn, each rendered as an ordinary turn
(Ctrl-C cancels the turn and ends the goal). A /loop's iteration is due every interval
after the previous one ended; a timer thread then ends the waiting prompt with `TICK`
(only while the prompt is empty: never during a turn, never over a line being typed), and
the main thread runs the iteration as an ordinary turn. The same thread watches the
background runs this REPL started and says above the prompt when one ends.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from hermes_cli.repl.app import call_in_app, in_terminal

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

    from frontend.autonomy.goal import Goal
    from frontend.autonomy.loop import LoopSpec
    from hermes_cli.slash.api import ReplLike as Repl

TICK = "\x00hermes-loop-tick"  # what the prompt returns when an iteration is due
RETRY = 0.5  # seconds before asking a busy (or typed-in) prompt again
WATCH = 2.0  # seconds between looks at the background runs started here


@dataclass
class Loop:
    spec: LoopSpec
    interval: float
    why: str
    next_at: float
    iterations: int = 0
    spent: float = 0.0


class Autonomy:
    """The REPL's goal, loop and background runs (one per REPL)."""

    def __init__(self, repl: Repl, clock: Callable[[], float] = time.monotonic) -> None:
        self.repl = repl
        self.clock = clock
        self.goal: Goal | None = None
        self.loop: Loop | None = None
        self.prompt: PromptSession[str] | None = None
        self.background: dict[str, str] = {}  # session id -> last state seen
        self._wake = threading.Event()
        self._lock = threading.Lock()
        self._fired = False
        self._closed = False
        self._thread: threading.Thread | None = None

    # -- /goal -------------------------------------------------------------------------
    def run_goal(self, goal: Goal) -> None:
        """Turn after turn until the goal stops (main thread; each turn rendered)."""
        agent = self.repl.agent
        self.goal = goal
        try:
            while (text := goal.next_message()) is not None:
                self.repl.run_turn_events(partial(goal.turn_events, agent, text))
                if goal.needs_question:
                    self.repl.run_turn_events(lambda cancel: goal.question_events(agent, cancel))
        except KeyboardInterrupt:  # between two turns: the goal ends as a turn's Ctrl-C does
            goal.stop = goal.stop or "cancelled"
            self.repl.renderer.notice(goal.stop_notice(agent).text)

    # -- /loop -------------------------------------------------------------------------
    def start_loop(self, spec: LoopSpec, interval: float, why: str) -> Loop:
        with self._lock:
            self.loop = Loop(spec, interval, why, self.clock() + interval)
            self._fired = False
        self._ensure_thread()
        self._wake.set()
        return self.loop

    def stop_loop(self) -> Loop | None:
        with self._lock:
            loop, self.loop = self.loop, None
        self._wake.set()
        return loop

    def tick(self) -> None:
        """The prompt returned TICK: run the loop's iteration now (main thread)."""
        with self._lock:
            self._fired = False
            loop = self.loop
        if loop is None:
            return  # stopped between the timer and the prompt
        loop.iterations += 1
        agent = self.repl.agent
        before = agent.budget.spent_usd
        from hermes_cli.render.usage import fmt_money  # lazy: loaded with the agent

        self.repl.renderer.notice(f"loop: iteration {loop.iterations} (every "
                                  f"{_span(loop.interval)}): {_short(loop.spec.prompt)}")
        try:
            self.repl.run_turn(loop.spec.prompt)
        finally:
            loop.spent += agent.budget.spent_usd - before
            loop.next_at = self.clock() + loop.interval
            self._wake.set()
        refusal = agent.budget.refusal()
        if refusal is not None and self.loop is loop:
            self.stop_loop()
            self.repl.renderer.notice(f"loop stopped: {refusal} (spent {fmt_money(loop.spent)} "
                                      f"over {loop.iterations} iterations)")

    # -- background runs ---------------------------------------------------------------
    def watch(self, session_id: str) -> None:
        self.background[session_id] = "running"
        self._ensure_thread()

    # -- the timer thread --------------------------------------------------------------
    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="hermes-autonomy",
                                            daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._closed = True
        self._wake.set()

    def _run(self) -> None:
        next_watch = self.clock()
        while not self._closed:
            now = self.clock()
            if self.background and now >= next_watch:
                self._look_at_runs()
                next_watch = now + WATCH
            waits = [next_watch - now] if self.background else []
            loop = self.loop
            if loop is not None:
                due = loop.next_at - now
                if due <= 0 and not self._fired:
                    self._fire()
                    due = RETRY
                waits.append(max(due, RETRY) if self._fired else due)
            self._wake.wait(max(0.05, min(waits)) if waits else None)
            self._wake.clear()

    def _fire(self) -> None:
        """End the waiting prompt with TICK, if it waits with nothing typed."""
        prompt = self.prompt
        if prompt is None:
            return
        app = prompt.app

        def ask() -> None:
            if not prompt.default_buffer.text and not self._fired and self.loop is not None:
                self._fired = True
                app.exit(result=TICK)

        call_in_app(app, ask)

    def _look_at_runs(self) -> None:
        from frontend.autonomy.background import run_state  # lazy: loaded with the agent

        store = getattr(getattr(self.repl, "_agent", None), "store", None)  # built by now
        if store is None:
            return
        for session_id, seen in list(self.background.items()):
            state = run_state(store, session_id)
            if state.state != seen:
                self.background[session_id] = state.state
                if state.state != "running":
                    self.background.pop(session_id, None)
                    self._say(f"background run {session_id} {state.state} ({state.cost_text}); "
                              f"`hermes logs {session_id}` shows it")

    def _say(self, text: str) -> None:
        prompt = self.prompt
        if prompt is None:
            return
        call_in_app(prompt.app, lambda: in_terminal(lambda: self.repl.renderer.notice(text)))


def _span(seconds: float) -> str:
    from frontend.autonomy.loop import span  # lazy: loaded with the first loop

    return span(seconds)


def _short(text: str, limit: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
