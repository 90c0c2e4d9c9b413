"""A check's result, running checks concurrently each with a deadline, the screen.

States: `ok`, `fail` (a problem: exit 1, with its fix), `info` (a fact that is no
problem: no gateway running, no platform configured). A check that raises is a `fail`
with the exception's message; one that passes its deadline is a `fail` that says so.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

OK, FAIL, INFO = "ok", "fail", "info"
MARKS = {OK: "ok  ", FAIL: "FAIL", INFO: "info"}


@dataclass(frozen=True)
class Result:
    """One line of the screen (and its fix, for a failure)."""

    name: str
    state: str
    detail: str
    fix: str = ""


Probe = Callable[[], Result | list[Result]]


@dataclass(frozen=True)
class Check:
    """A named probe and how long it may take (seconds)."""

    name: str
    probe: Probe
    timeout: float = 10.0


def _results(value: Result | list[Result]) -> list[Result]:
    return value if isinstance(value, list) else [value]


def run_all(checks: Iterable[Check]) -> list[Result]:
    """Run every check in its own daemon thread (they wait on the network); the results
    in the checks' order. A check still running at its deadline is reported as timed out
    and left behind (daemon: it does not hold the exit)."""
    todo = list(checks)
    found: dict[int, list[Result]] = {}
    threads: list[tuple[threading.Thread, float]] = []

    def run(index: int, check: Check) -> None:
        try:
            found[index] = _results(check.probe())
        except Exception as exc:  # noqa: BLE001 - a check's failure is a line on the screen
            found[index] = [Result(check.name, FAIL, f"the check itself failed: {exc}",
                                   "run with HERMES_DEBUG=1 and report it")]

    start = time.monotonic()
    for index, check in enumerate(todo):
        thread = threading.Thread(target=run, args=(index, check), daemon=True,
                                  name=f"doctor-{check.name}")
        thread.start()
        threads.append((thread, start + check.timeout))
    for thread, deadline in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    out: list[Result] = []
    for index, check in enumerate(todo):
        out.extend(found.get(index) or [Result(
            check.name, FAIL, f"no answer within {check.timeout:g} s",
            "see whether that service is up and reachable from here")])
    return out


def render(results: list[Result], write: Callable[[str], None], header: str,
           seconds: float | None = None) -> None:
    """The screen: a header, one line per result, a failure's fix under it, a summary."""
    write(header)
    width = max((len(r.name) for r in results), default=0)
    for r in results:
        write(f"  {MARKS[r.state]}  {r.name.ljust(width)}  {r.detail}")
        if r.state == FAIL and r.fix:
            write(f"        {' ' * width}  fix: {r.fix}")
    problems = sum(r.state == FAIL for r in results)
    verdict = "healthy" if not problems else f"{problems} problem{'s' if problems != 1 else ''} found"
    write(verdict if seconds is None else f"{verdict} ({seconds:.1f} s)")


def exit_code(results: list[Result]) -> int:
    """0 when nothing failed (information never fails), else 1."""
    return 1 if any(r.state == FAIL for r in results) else 0
