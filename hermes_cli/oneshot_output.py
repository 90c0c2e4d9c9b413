"""What `hermes -q` writes on stdout: `--output-format text|json|stream-json`
(hermes_cli/argv_checks.py checks the flag).

- text: the answer alone.
- json (`--json`): one object at the end (`result`).
- stream-json: one JSON object per line as things happen, for a CI job to follow -
  `start` (session id, model, provider, tools), `text` (each streamed piece),
  `tool_use` and `tool_result`, `usage` (each billed call, with its miss cause),
  `notice`, then `result` (as json's object, with `"type": "result"`).

`usage_object` is the one builder of the usage both json and stream-json's result carry:
the turn's tokens and cost (from its events), its cache misses with their causes and
its explicit-cache storage, and the session's totals (from the store's usage rows, the
report /usage shows: frontend/usage_report.py).
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from agent.events import ErrorEvent, Notice, TextDelta, ToolFinished, ToolStarted, UsageEvent
from frontend.outcome import TurnOutcome
from frontend.usage_report import UsageReport

_DOLLARS, _RATIO = 8, 6


def _round(value: float | None, places: int) -> float | None:
    return None if value is None else round(value, places)


def usage_object(outcome: TurnOutcome, report: UsageReport | None) -> dict[str, Any]:
    """The usage of `-q --json` and of stream-json's result (module docstring)."""
    usage, hit, cost = outcome.usage, outcome.usage.hit_rate, outcome.total_cost
    data: dict[str, Any] = {
        "uncached_input": usage.uncached,
        "cache_write": usage.cache_write if usage.cache_known else None,
        "cache_read": usage.cache_read if usage.cache_known else None,
        "output": usage.output,
        "calls": usage.calls,
        "cost_usd": None if cost is None else (round(cost, _DOLLARS) if usage.calls else 0.0),
        "hit_rate": _round(hit, _RATIO),
        "stored_token_hours": round(usage.stored_token_hours, _RATIO),
        "storage_cost": None, "misses": [], "session": None,
        "meters": usage.meters_list(),  # what else was billed (agent/usage.py Meter)
    }
    if report is None:  # no store, or nothing was sent
        return data
    last = report.per_turn[-1].turn if report.per_turn else None
    data["storage_cost"] = _round(report.turn.storage_cost, _DOLLARS)
    data["misses"] = [{"call_index": m.call_index, "cause": m.cause, "detail": m.detail,
                       "missed_tokens": m.missed_tokens, "explanation": m.explanation}
                      for m in report.misses if m.turn == last]
    total = report.session
    data["session"] = {"calls": total.calls, "cost_usd": _round(total.cost, _DOLLARS),
                       "hit_rate": _round(total.hit_rate, _RATIO),
                       "cache_read": total.cache_read,
                       "stored_token_hours": round(total.stored_token_hours, _RATIO),
                       "storage_cost": _round(total.storage_cost, _DOLLARS)}
    return data


def result_object(outcome: TurnOutcome, session_id: str | None, error: ErrorEvent | None,
                  budget: dict[str, Any] | None, report: UsageReport | None) -> dict[str, Any]:
    """json's object; stream-json's last line (with "type": "result" first).
    `session_id` None: no session was opened (the run failed before its turn)."""
    return {
        "session_id": session_id,
        "answer": outcome.answer,
        "is_error": error is not None,
        "error": None if error is None else error.message,
        "stop_reason": outcome.reason or None,
        "budget": budget,
        "usage": usage_object(outcome, report),
    }


class Stream:
    """stream-json's lines, written and flushed as each event comes."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def line(self, kind: str, **fields: Any) -> None:
        self.out.write(json.dumps({"type": kind, **fields}, ensure_ascii=False) + "\n")
        self.out.flush()

    def start(self, agent: Any) -> None:
        choices = agent.session.choices
        self.line("start", session_id=agent.session_id, model=choices.model,
                  provider=choices.provider, tools=[t.name for t in choices.tools],
                  cwd=str(agent.config.cwd))

    def event(self, event: object) -> None:
        """One turn event as its line (others, such as thinking, are not written)."""
        if isinstance(event, TextDelta) and event.text:
            self.line("text", text=event.text)
        elif isinstance(event, ToolStarted):
            self.line("tool_use", id=event.call_id, name=event.name, arguments=event.arguments)
        elif isinstance(event, ToolFinished):
            self.line("tool_result", id=event.call_id, name=event.name, ok=event.ok,
                      duration_s=round(event.duration, 3), summary=event.summary,
                      content=event.content)
        elif isinstance(event, UsageEvent):
            u = event.usage
            self.line("usage", model=event.model, uncached_input=u.uncached,
                      cache_write=u.cache_write if u.cache_known else None,
                      cache_read=u.cache_read if u.cache_known else None, output=u.output,
                      cost_usd=_round(event.cost_usd, _DOLLARS), miss_cause=event.miss_cause)
        elif isinstance(event, Notice):
            self.line("notice", level=event.level, text=event.text)
        elif isinstance(event, ErrorEvent):
            self.line("error", message=event.message, hint=event.hint or None)
