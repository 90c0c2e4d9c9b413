"""Observers of agent turns: the one seam where telemetry watches the runtime.

Every turn's events (model text, each provider call's UsageEvent, ToolStarted and
ToolFinished, Done) already pass through `AIAgent.run_turn`; an observer wraps that
iterator and passes every event on unchanged (`watch` is a generator that yields
what it reads). Two kinds:

- process-wide (`add`): e.g. OpenTelemetry (agent/otel.py), installed by the front
  end's agent builder when the `OTEL_*` variables ask for it; sub-agents' turns too.
- an agent's own (`AIAgent.observers`): e.g. the gateway's turn timer for /metrics.

With none, `watched` returns the turn's own generator: no cost, no import.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from agent.events import Event


@dataclass(frozen=True)
class TurnInfo:
    """What an observer knows of a turn before its first event."""

    session_id: str
    model: str
    provider: str
    text: str  # the user's message (telemetry records it only when asked to)
    subagent: bool = False


class Observer(Protocol):
    def watch(self, events: Iterator[Event], info: TurnInfo) -> Iterator[Event]:
        """Yield every event of `events`, unchanged and in order."""


_process: list[Observer] = []


def add(observer: Observer) -> None:
    """Watch every turn of this process from now on."""
    if observer not in _process:
        _process.append(observer)


def remove(observer: Observer) -> None:
    if observer in _process:
        _process.remove(observer)


def installed() -> tuple[Observer, ...]:
    return tuple(_process)


def watched(events: Iterator[Event], info: TurnInfo,
            own: Iterable[Observer] = ()) -> Iterator[Event]:
    """`events` wrapped by the process's observers, then the agent's own."""
    for observer in (*_process, *own):
        events = observer.watch(events, info)
    return events
