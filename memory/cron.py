"""Scheduled jobs and their runs in the store (SQLite or PostgreSQL), tables of
migration 0012_cron. What a schedule means is `agent.cron`'s; this module keeps rows.

The one rule that matters: a run is claimed by ONE statement that also advances the
job's next run, `UPDATE cron_jobs SET next_run = :next WHERE id = :id AND next_run =
:seen` (in the transaction that records the run). The worker whose update changed the
row runs the fire; a worker that read the same `:seen` changes nothing (PostgreSQL
re-checks the WHERE after the winner commits; SQLite's BEGIN IMMEDIATE serialises) and
runs nothing. A crash after the claim leaves the run recorded as `running`, never
fired again. `:next` is the first fire after NOW, not after `:seen`: fires missed while
no gateway ran collapse into this one run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memory.leases import release, take

if TYPE_CHECKING:
    from memory.db import Handle, Row

# part of migration 0012_cron (memory/migrations.py, migrations_pg.py): never edit
JOBS_DDL = (
    "CREATE TABLE cron_jobs (id {id}, name TEXT NOT NULL UNIQUE, schedule TEXT NOT NULL,"
    " tz TEXT NOT NULL, prompt TEXT NOT NULL, deliver TEXT NOT NULL, provider TEXT NOT NULL,"
    " model TEXT NOT NULL, max_usd {real}, daily_usd {real}, workdir TEXT, skills TEXT,"
    " permissions TEXT, owner TEXT, created {real} NOT NULL, paused INTEGER NOT NULL DEFAULT 0,"
    " next_run BIGINT, last_status TEXT, last_error TEXT)")
RUNS_DDL = (
    "CREATE TABLE cron_runs (id {id}, job_id BIGINT NOT NULL, due BIGINT NOT NULL,"
    " started {real} NOT NULL, finished {real}, worker TEXT, session_id TEXT,"
    " status TEXT NOT NULL, cost_usd {real}, output TEXT, error TEXT, delivery TEXT,"
    " delivered INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0)")

#: a run's status: running -> ok | error | skipped | silent (a `[SILENT]` reply)
FINISHED = ("ok", "error", "skipped", "silent")

#: "a scheduler is running for this home" = a live lease row `cron-scheduler:WORKER` in
#: the store's `leases` table (memory/leases.py: SQLite and PostgreSQL alike), which each
#: gateway worker's Scheduler renews every BEAT seconds and releases when it stops; a
#: worker that died leaves a row that expires after SCHEDULER_TTL.
SCHEDULER_LEASE = "cron-scheduler:"
SCHEDULER_TTL = 90.0
HOLD = 3600.0  # s a running run's spending limit is held for it without a live scheduler
BEAT = 30.0


@dataclass(frozen=True)
class Job:
    """One job as stored."""

    id: int
    name: str
    schedule: str
    tz: str
    prompt: str
    deliver: str
    provider: str
    model: str
    max_usd: float | None
    daily_usd: float | None
    workdir: str | None
    skills: tuple[str, ...]
    permissions: dict[str, Any] | None
    owner: str | None
    created: float
    paused: bool
    next_run: int | None
    last_status: str | None
    last_error: str | None

    @classmethod
    def of(cls, row: Row) -> Job:
        return cls(int(row["id"]), row["name"], row["schedule"], row["tz"], row["prompt"],
                   row["deliver"], row["provider"], row["model"], row["max_usd"],
                   row["daily_usd"], row["workdir"], tuple(json.loads(row["skills"] or "[]")),
                   json.loads(row["permissions"]) if row["permissions"] else None,
                   row["owner"], float(row["created"]), bool(row["paused"]),
                   None if row["next_run"] is None else int(row["next_run"]),
                   row["last_status"], row["last_error"])


@dataclass(frozen=True)
class Claim:
    """A fire this worker won: run `run_id` of `job`, due at `due`."""

    job: Job
    run_id: int
    due: int


class CronStore:
    """The jobs and runs on one store handle (see the module docstring)."""

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    # -- jobs -----------------------------------------------------------------------------
    def add(self, fields: Mapping[str, Any]) -> Job:
        """Insert a job (`fields`: its columns; skills a list, permissions a dict)."""
        row = dict(fields)
        row["skills"] = json.dumps(list(row.get("skills") or ()))
        row["permissions"] = json.dumps(row["permissions"]) if row.get("permissions") else None
        row.setdefault("created", time.time())
        job_id = self.handle.insert("cron_jobs", row)
        found = self.get(str(job_id))
        assert found is not None
        return found

    def jobs(self, owner: str | None = None, *, every_owner: bool = True) -> list[Job]:
        """All jobs (`every_owner`), or those `owner` created, oldest first."""
        if every_owner:
            rows = self.handle.rows("SELECT * FROM cron_jobs ORDER BY id")
        elif owner is None:
            rows = self.handle.rows("SELECT * FROM cron_jobs WHERE owner IS NULL ORDER BY id")
        else:
            rows = self.handle.rows("SELECT * FROM cron_jobs WHERE owner = ? ORDER BY id", [owner])
        return [Job.of(r) for r in rows]

    def get(self, ident: str) -> Job | None:
        """The job with id or name `ident`."""
        rows = self.handle.rows("SELECT * FROM cron_jobs WHERE name = ?", [ident])
        if not rows and ident.isdigit():
            rows = self.handle.rows("SELECT * FROM cron_jobs WHERE id = ?", [int(ident)])
        return Job.of(rows[0]) if rows else None

    def remove(self, job_id: int) -> None:
        with self.handle.transaction():
            self.handle.execute("DELETE FROM cron_runs WHERE job_id = ?", [job_id])
            self.handle.execute("DELETE FROM cron_jobs WHERE id = ?", [job_id])

    def set_paused(self, job_id: int, paused: bool, next_run: int | None) -> None:
        """Pause (next_run kept) or resume (`next_run`: the first fire from now)."""
        self.handle.execute("UPDATE cron_jobs SET paused = ?, next_run = ? WHERE id = ?",
                            [int(paused), next_run, job_id])

    def due(self, now: float) -> list[Job]:
        """Jobs not paused whose next run is at or before `now`."""
        rows = self.handle.rows("SELECT * FROM cron_jobs WHERE paused = 0 AND next_run IS NOT NULL"
                                " AND next_run <= ? ORDER BY next_run, id", [int(now)])
        return [Job.of(r) for r in rows]

    def next_due(self) -> int | None:
        """The earliest next run of any job not paused (None: nothing scheduled)."""
        rows = self.handle.rows("SELECT MIN(next_run) AS n FROM cron_jobs WHERE paused = 0")
        value = rows[0]["n"] if rows else None
        return None if value is None else int(value)

    # -- runs -----------------------------------------------------------------------------
    def claim(self, job: Job, seen: int, next_run: int | None, worker: str,  # noqa: PLR0913
              now: float, *, manual: bool = False) -> Claim | None:
        """Claim the fire of `job` due at `seen`, moving its next run to `next_run`, and
        record the run - one transaction; None when another worker (or an earlier
        claim) moved it first. `manual` (`hermes cron run`): no schedule change."""
        with self.handle.transaction():
            if not manual:
                changed = self.handle.execute(
                    "UPDATE cron_jobs SET next_run = ? WHERE id = ? AND next_run = ? AND paused = 0",
                    [next_run, job.id, seen])
                if changed != 1:
                    return None
            run_id = self.handle.insert("cron_runs", {
                "job_id": job.id, "due": seen, "started": now, "worker": worker,
                "status": "running"})
        return Claim(job, run_id, seen)

    def started(self, run_id: int, session_id: str) -> None:
        self.handle.execute("UPDATE cron_runs SET session_id = ? WHERE id = ?", [session_id, run_id])

    def finish(self, run_id: int, job_id: int, status: str, *, output: str = "",  # noqa: PLR0913
               cost: float | None = None, error: str | None = None,
               delivery: str | None = None, now: float | None = None) -> None:
        """Record how a run ended (and the job's last result)."""
        with self.handle.transaction():
            self.handle.execute(
                "UPDATE cron_runs SET status = ?, output = ?, cost_usd = ?, error = ?,"
                " delivery = ?, finished = ? WHERE id = ?",
                [status, output, cost, error, delivery, now or time.time(), run_id])
            self.handle.execute("UPDATE cron_jobs SET last_status = ?, last_error = ? WHERE id = ?",
                                [status, error, job_id])

    def delivered(self, run_id: int, ok: bool, attempts: int, error: str | None = None) -> None:
        """A delivery's outcome: delivered, or failed after `attempts` (the text stays)."""
        self.handle.execute(
            "UPDATE cron_runs SET delivered = ?, attempts = ?, error = COALESCE(?, error)"
            " WHERE id = ?", [1 if ok else 0, attempts, error, run_id])

    def runs(self, job_id: int, limit: int = 20) -> list[Row]:
        """The job's latest runs, newest first."""
        return self.handle.rows("SELECT * FROM cron_runs WHERE job_id = ? ORDER BY id DESC LIMIT ?",
                                [job_id, limit])

    def spent(self, job_id: int, since: float = 0.0) -> float:
        """USD the job's runs cost since `since` (epoch seconds; 0: ever): the finished
        runs' recorded cost, and what the runs still going have spent so far (their
        sessions' usage rows, written call by call), so that the daily cap holds while
        runs overlap."""
        done = self.handle.rows("SELECT SUM(cost_usd) AS s FROM cron_runs WHERE job_id = ?"
                                " AND started >= ? AND status <> 'running'", [job_id, since])
        live = self.handle.rows(
            "SELECT SUM(u.cost_usd) AS s FROM usage u JOIN cron_runs r ON r.session_id ="
            " u.session_id WHERE r.job_id = ? AND r.started >= ? AND r.status = 'running'",
            [job_id, since])
        return sum(float(rows[0]["s"] or 0.0) for rows in (done, live) if rows)

    def reserve(self, run_id: int, job_id: int, since: float, cap: float | None,  # noqa: PLR0913
                per_run: float | None, now: float | None = None) -> float | None:
        """Run `run_id`'s spending limit, recorded on it: `per_run`, and no more than the
        job's daily `cap` has left after its finished runs (since `since`) and what every
        other running run holds - its own limit, or what it spent so far when that is more
        or when its run is orphaned (no live scheduler and older than HOLD). One
        transaction holding the job's row, so two runs starting at once cannot both take
        what is left. None: no limit at all."""
        moment = time.time() if now is None else now
        with self.handle.transaction():
            self.handle.execute("UPDATE cron_jobs SET id = id WHERE id = ?", [job_id])  # row lock
            done = self.handle.rows("SELECT SUM(cost_usd) AS s FROM cron_runs WHERE job_id = ?"
                                    " AND started >= ? AND status <> 'running'", [job_id, since])
            alive = {worker for worker, _ in self.schedulers(moment)}
            others = self.handle.rows(
                "SELECT r.worker, r.started, r.reserved_usd, (SELECT SUM(u.cost_usd) FROM usage u"
                " WHERE u.session_id = r.session_id) AS live FROM cron_runs r WHERE r.job_id = ?"
                " AND r.started >= ? AND r.status = 'running' AND r.id <> ?", [job_id, since, run_id])
            held = 0.0
            for row in others:
                live = float(row["live"] or 0.0)
                kept = row["worker"] in alive or float(row["started"]) > moment - HOLD
                held += max(live, float(row["reserved_usd"] or 0.0)) if kept else live
            left = None if cap is None else cap - float(done[0]["s"] or 0.0) - held
            limits = [x for x in (per_run, left) if x is not None]
            limit = min(limits) if limits else None
            self.handle.execute("UPDATE cron_runs SET reserved_usd = ? WHERE id = ?",
                                [None if limit is None else max(0.0, limit), run_id])
        return limit

    # -- the schedulers -------------------------------------------------------------------
    def beat(self, worker: str) -> None:
        """Worker `worker`'s scheduler is alive (renews its lease for SCHEDULER_TTL)."""
        take(self.handle, SCHEDULER_LEASE + worker, worker, SCHEDULER_TTL)

    def rest(self, worker: str) -> None:
        """Worker `worker`'s scheduler stopped."""
        release(self.handle, SCHEDULER_LEASE + worker, worker)

    def schedulers(self, now: float | None = None) -> list[tuple[str, float]]:
        """(worker, seconds since its last beat) of every scheduler alive, freshest first."""
        moment = time.time() if now is None else now
        rows = self.handle.rows("SELECT holder, expires FROM leases WHERE name LIKE ? AND"
                                " expires > ? ORDER BY expires DESC",
                                [SCHEDULER_LEASE + "%", moment])
        return [(str(r["holder"]), max(0.0, moment - (float(r["expires"]) - SCHEDULER_TTL)))
                for r in rows]

    def undelivered(self) -> list[Row]:
        """Finished runs whose delivery failed (kept for a later retry or a look)."""
        return self.handle.rows("SELECT * FROM cron_runs WHERE delivered = 0 AND delivery IS NOT NULL"
                                " AND attempts > 0 ORDER BY id")
