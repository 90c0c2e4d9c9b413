"""Defining a job: its name and its row, one code path for `hermes cron add`
(frontend/cron/jobs.py, which also checks the provider, model and skills) and the
agent's `cronjob` tool (which pins the session's own model)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from agent.cron.due import next_run
from agent.cron.schedule import Schedule
from agent.errors import ConfigError
from memory.cron import CronStore, Job

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def default_name(prompt: str, taken: set[str]) -> str:
    """A name from the prompt's first words, unique among `taken`."""
    words = re.findall(r"[A-Za-z0-9]+", prompt.lower())[:4]
    base = "-".join(words)[:40] or "job"
    name, n = base, 2
    while name in taken:
        name, n = f"{base[:36]}-{n}", n + 1
    return name


def pick_name(cron: CronStore, name: str | None, prompt: str) -> str:
    """`name` checked (usable, free), or one made from the prompt."""
    if not prompt.strip():
        raise ConfigError("the job's prompt is empty", "say what the job should do each run")
    taken = {job.name for job in cron.jobs()}
    chosen = name.strip() if name else default_name(prompt, taken)
    if not _NAME.match(chosen) or chosen.isdigit():
        raise ConfigError(f"job name {chosen!r} is not usable",
                          "use letters, digits, '-', '_' or '.', not only digits (ids are numbers)")
    if chosen in taken:
        raise ConfigError(f"a job named {chosen!r} exists", "pick another name, or remove that job")
    return chosen


def powers(workspace: str, daily_usd: float | None, allow: tuple[str, ...] = (), *,
           sandboxed: bool = True) -> str:
    """What each run of a job may do, said before it is made (the approval, `hermes cron
    add`): a run is a session with no more power than the one that made it."""
    rules = f"; allowed without asking: {', '.join(allow)}" if allow else ""
    cap = f", at most {daily_usd:g} USD a day" if daily_usd is not None else ""
    box = "sandboxed" if sandboxed else "NOT sandboxed (sandbox.enabled is false)"
    return (f"each run is a new unattended session, {box}, never --yolo (what would ask "
            f"is refused{rules}), working in {workspace}{cap}")


NETWORKS = ("off", "public", "on")  # narrowest first (agent/sandbox/policy.py)
CREATED_IN = "created_in"  # the permissions column's record of the creating session's sandbox


def created_in(permissions: Mapping[str, object] | None, sandboxed: bool,
               network: str) -> dict[str, object]:
    """The job's permissions with the creating session's sandbox recorded: its runs never
    have more (frontend/cron/run.py narrows to it)."""
    return {**(permissions or {}), CREATED_IN: {"sandbox": sandboxed, "network": network}}


def rules_of(permissions: dict[str, object] | None) -> dict[str, object] | None:
    """The permission rules alone (what agent.permissions.rules.parse reads)."""
    if not permissions:
        return None
    rules = {k: v for k, v in permissions.items() if k != CREATED_IN}
    return rules or None


def narrower(now: str, then: str) -> str:
    """The narrower of two `sandbox.network` values."""
    known = [n for n in (now, then) if n in NETWORKS]
    return min(known, key=NETWORKS.index) if known else now


def insert(cron: CronStore, schedule: Schedule, fields: Mapping[str, object], now: float) -> Job:
    """Store the job (`fields`: its other columns) with its first fire after `now`."""
    job = cron.add({**fields, "schedule": schedule.text, "tz": schedule.tz, "created": now,
                    "paused": 0})
    cron.set_paused(job.id, False, next_run(job, now))
    found = cron.get(str(job.id))
    assert found is not None
    return found
