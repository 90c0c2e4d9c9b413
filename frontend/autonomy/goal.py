"""/goal [--check CMD] [--max-turns N] TEXT: hermes works on TEXT turn after turn.

After each turn the goal is judged:
- with `--check CMD`: CMD runs through the session's own terminal tool (its sandbox, the
  permission rules, approvals: `frontend.command_run.shell_outputs`); exit 0 means done,
  otherwise its last lines go into the next continuation, so the model sees why;
- without: one more user message asks whether the goal holds and the answer's first
  line (DONE / NOT DONE) decides. It is appended to the conversation like any message,
  so it reads the whole cached prefix and changes no tools or system bytes.

It stops when done, at `max_turns`, at the session's budget, on a failed turn or on
Ctrl-C (the turn's cancel), and says which. The driver is a state machine the front end
steps (`turn`, then `question` when there is no check), so each turn is rendered, undone
and counted as an ordinary one.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent.events import Done, Event, Notice
from agent.usage import usd
from frontend.command_run import shell_outputs

if TYPE_CHECKING:
    from agent.agent import AIAgent
    from agent.cancel import CancelToken

DEFAULT_MAX_TURNS = 10
MAX_MAX_TURNS = 200
CHECK_TAIL = 20  # lines of a failing check's output put into the next continuation
USAGE = "/goal [--check CMD] [--max-turns N] TEXT | /goal | /goal stop"
_EXIT = re.compile(r"\[exit code (-?\d+)\]\s*$")
_VERDICT = re.compile(r"^\W*(NOT\s+DONE|DONE)\b", re.IGNORECASE)

STOPS = {
    "done": "the goal is met",
    "max_turns": "reached --max-turns",
    "budget": "the session's budget is spent",
    "cancelled": "stopped by Ctrl-C",
    "stopped": "stopped by /goal stop",
    "error": "a turn failed",
}


class GoalUsageError(ValueError):
    """A /goal line that cannot be read; the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class GoalSpec:
    text: str
    check: str | None = None
    max_turns: int = DEFAULT_MAX_TURNS


def parse_goal(arg: str) -> GoalSpec:
    """`[--check CMD] [--max-turns N] TEXT` (CMD quoted when it has spaces)."""
    try:
        words = shlex.split(arg)
    except ValueError as exc:
        raise GoalUsageError(f"cannot read the /goal line ({exc}); close the quotes "
                             "around --check's command") from None
    check, max_turns = None, DEFAULT_MAX_TURNS
    while words and words[0].startswith("--"):
        option = words.pop(0)
        if option in ("--check", "--max-turns") and not words:
            raise GoalUsageError(f"{option} needs a value: {USAGE}")
        if option == "--check":
            check = words.pop(0)
            if not check.strip():
                raise GoalUsageError("--check's command is empty; give one, e.g. "
                                     "--check \"pytest -q\"")
        elif option == "--max-turns":
            value = words.pop(0)
            if not value.isdigit() or not 1 <= int(value) <= MAX_MAX_TURNS:
                raise GoalUsageError(f"--max-turns takes a whole number from 1 to "
                                     f"{MAX_MAX_TURNS}, not '{value[:20]}'")
            max_turns = int(value)
        else:
            raise GoalUsageError(f"unknown /goal option {option[:30]}: {USAGE}")
    text = " ".join(words).strip()
    if not text:
        raise GoalUsageError(f"the goal's text is missing: {USAGE}")
    return GoalSpec(text, check, max_turns)


def first_message(spec: GoalSpec) -> str:
    how = (f"After each of your turns `{spec.check}` runs; exit code 0 means done."
           if spec.check else "After each of your turns you will be asked whether it holds.")
    return (f"Goal: {spec.text}\nWork towards it over several turns without waiting for me; "
            f"{how}")


def continuation(spec: GoalSpec, turn: int, why: str) -> str:
    """The user message of turn `turn` (2..): the goal again and why it is not met yet."""
    head = f"Continue with the goal (turn {turn} of at most {spec.max_turns}): {spec.text}"
    return f"{head}\nNot done yet: {why}" if why else head


def question(spec: GoalSpec) -> str:
    return (f"Does the goal hold now? Goal: {spec.text}\nAnswer on the first line with DONE "
            "or NOT DONE, then one line saying why. Do not call tools for this answer.")


def verdict(answer: str) -> tuple[bool, str]:
    """(done, why) from a question's answer; anything unreadable is "not done"."""
    lines = [line.strip() for line in answer.strip().splitlines() if line.strip()]
    if not lines:
        return False, "no answer to the question"
    found = _VERDICT.match(lines[0])
    done = found is not None and found.group(1).upper() == "DONE"
    why = " ".join(lines[1:])[:500] or lines[0][:500]
    return done, why if found else f"the answer did not start with DONE: {lines[0][:200]}"


def check_result(content: str) -> tuple[bool, str]:
    """(passed, its last lines) from the terminal tool's result of the check."""
    found = _EXIT.search(content)
    passed = found is not None and int(found.group(1)) == 0
    tail = "\n".join(content.rstrip().splitlines()[-CHECK_TAIL:])
    return passed, tail


@dataclass
class Goal:
    """One goal being worked on: the turn reached, the spend since it began, why it stopped."""

    spec: GoalSpec
    spent_before: float = 0.0
    turn: int = 0
    stop: str = ""  # a key of STOPS once it ended
    why: str = ""  # why the last check said "not done"
    checks: list[bool] = field(default_factory=list)

    @property
    def running(self) -> bool:
        return not self.stop

    def describe(self, spent_now: float) -> str:
        """What /goal shows."""
        state = f"stopped: {STOPS[self.stop]}" if self.stop else "running"
        check = f" · check `{self.spec.check}`" if self.spec.check else ""
        return (f"goal: {self.spec.text}{check} · turn {self.turn} of {self.spec.max_turns} · "
                f"spent {usd(max(0.0, spent_now - self.spent_before))} · {state}")

    def next_message(self) -> str | None:
        """The next turn's message; None once the goal stopped (or ran out of turns)."""
        if self.stop:
            return None
        if self.turn >= self.spec.max_turns:
            self.stop = "max_turns"
            return None
        self.turn += 1
        if self.turn == 1:
            return first_message(self.spec)
        return continuation(self.spec, self.turn, self.why)

    def turn_events(self, agent: AIAgent, text: str, cancel: CancelToken) -> Iterator[Event]:
        """Run one turn of the goal; with a check, the check after it."""
        reason = ""
        for event in agent.run_turn(text, cancel):
            if isinstance(event, Done):
                reason = event.reason
            yield event
        if self._stopped_by(reason, cancel, agent):
            yield self.stop_notice(agent)
            return
        if self.spec.check is not None:
            yield from self._run_check(agent)

    def question_events(self, agent: AIAgent, cancel: CancelToken) -> Iterator[Event]:
        """Without a check: ask whether the goal holds (an ordinary message and turn)."""
        answer, reason = "", ""
        for event in agent.run_turn(question(self.spec), cancel):
            if isinstance(event, Done):
                answer, reason = event.answer, event.reason
            yield event
        if self._stopped_by(reason, cancel, agent):
            yield self.stop_notice(agent)
            return
        done, self.why = verdict(answer)
        self.checks.append(done)
        self._judged(done, agent)
        yield self.progress_notice(agent)

    @property
    def needs_question(self) -> bool:
        return self.running and self.spec.check is None

    def _run_check(self, agent: AIAgent) -> Iterator[Event]:
        """CMD through the session's terminal tool (sandbox, rules, approvals)."""
        outputs = yield from shell_outputs(agent, (self.spec.check or "",))
        passed, tail = check_result(outputs[0] if outputs else "")
        self.checks.append(passed)
        self.why = f"`{self.spec.check}` failed:\n{tail}" if not passed else ""
        self._judged(passed, agent)
        yield self.progress_notice(agent)

    def _judged(self, done: bool, agent: AIAgent) -> None:
        if done:
            self.stop = "done"
        elif agent.budget.refusal() is not None:
            self.stop = "budget"
        elif self.turn >= self.spec.max_turns:
            self.stop = "max_turns"

    def _stopped_by(self, reason: str, cancel: CancelToken, agent: AIAgent) -> bool:
        if self.stop:
            return True
        if cancel.cancelled or reason == "cancelled":
            self.stop = "cancelled"
        elif reason.startswith("budget_") or agent.budget.refusal() is not None:
            self.stop = "budget"
        elif reason in ("error", ""):
            self.stop = "error"
        return bool(self.stop)

    def progress_notice(self, agent: AIAgent) -> Notice:
        if self.stop:
            return self.stop_notice(agent)
        return Notice(f"goal not met after turn {self.turn} of {self.spec.max_turns}; "
                      "continuing", "info")

    def stop_notice(self, agent: AIAgent) -> Notice:
        text = (f"goal stopped after {self.turn} turn{'s' * (self.turn != 1)}: "
                f"{STOPS[self.stop]} (spent {usd(agent.budget.spent_usd - self.spent_before)})")
        return Notice(text, "info") if self.stop == "done" else Notice(text, "warning")


def start(agent: AIAgent, spec: GoalSpec) -> Goal:
    return Goal(spec, spent_before=agent.budget.spent_usd)


def run_all(agent: AIAgent, spec: GoalSpec, cancel: CancelToken) -> Iterator[Event]:
    """The whole goal as one stream of events, for a front end that answers once (an HTTP
    session, a chat): every turn's events but one Done at the end - the last work turn's
    answer with the line saying why the goal stopped."""
    goal, answer, reason = start(agent, spec), "", "answer"
    while (text := goal.next_message()) is not None:
        for event in goal.turn_events(agent, text, cancel):
            if isinstance(event, Done):
                answer, reason = event.answer, event.reason
            else:
                yield event
        if goal.needs_question:
            yield from (e for e in goal.question_events(agent, cancel) if not isinstance(e, Done))
    notice = goal.stop_notice(agent)
    yield notice
    yield Done(f"{answer.rstrip()}\n\n[{notice.text}]".lstrip(), reason)


def command(arg: str) -> tuple[str, str, GoalSpec | None]:
    """/goal for a front end without a goal of its own between requests (the gateway):
    (text, level, the goal to run as this request's turns)."""
    if not arg.strip() or arg.strip() == "stop":
        return (f"Over the API a goal runs within its request (no goal runs now); {USAGE}",
                "info", None)
    try:
        return "", "info", parse_goal(arg)
    except GoalUsageError as exc:
        return f"{exc}. usage: {USAGE}", "error", None

