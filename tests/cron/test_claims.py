"""Claiming fires (memory.cron + agent.cron.due) on SQLite (fast) and PostgreSQL (wire):
one claim per fire, the next run moved in the same transaction, missed fires collapsed
into one catch-up run, racing workers with exactly one winner."""

from __future__ import annotations

import time

from agent.cron.due import claim_due, next_run
from agent.cron.schedule import parse
from memory import open_store
from memory.cron import CronStore
from tests.helpers import at_once

T0 = 1_796_000_040  # a whole minute (UTC)


def _job(cron: CronStore, name: str = "digest", schedule: str = "* * * * *", created: float = T0):
    job = cron.add({"name": name, "schedule": schedule, "tz": "UTC", "prompt": "hi",
                    "deliver": "none", "provider": "anthropic", "model": "m", "created": created})
    cron.set_paused(job.id, False, next_run(job, created))
    return cron.get(name)


def test_a_fire_is_claimed_once_and_the_next_run_moves_with_it(any_store):
    cron = CronStore(any_store.handle)
    job = _job(cron)
    assert job.next_run == T0 + 60
    assert claim_due(cron, T0 + 30, "w1") == []  # not due yet
    claims = claim_due(cron, T0 + 61, "w1")
    assert [c.due for c in claims] == [T0 + 60]
    assert cron.get("digest").next_run == T0 + 120
    assert claim_due(cron, T0 + 61, "w2") == []  # the same fire again: nothing
    runs = cron.runs(job.id)
    assert len(runs) == 1 and runs[0]["status"] == "running" and runs[0]["worker"] == "w1"


def test_a_stale_claim_loses(any_store):
    """A worker that read the job before another claimed it changes nothing."""
    cron = CronStore(any_store.handle)
    job = _job(cron)
    assert cron.claim(job, T0 + 60, T0 + 120, "w1", T0 + 61) is not None
    assert cron.claim(job, T0 + 60, T0 + 120, "w2", T0 + 61) is None
    assert len(cron.runs(job.id)) == 1


def test_missed_fires_collapse_into_one_catch_up_run(any_store):
    cron = CronStore(any_store.handle)
    job = _job(cron)
    later = T0 + 60 * 5 + 7  # down across five boundaries
    claims = claim_due(cron, later, "w1")
    assert len(claims) == 1 and claims[0].due == T0 + 60
    assert cron.get("digest").next_run == T0 + 60 * 6
    assert claim_due(cron, later + 10, "w1") == []
    assert len(cron.runs(job.id)) == 1


def test_a_one_off_job_runs_once_then_has_no_next_run(any_store):
    cron = CronStore(any_store.handle)
    _job(cron, "once", "at 2026-12-24 09:00", created=T0 - 10**7)
    due = cron.get("once").next_run
    assert due is not None
    assert len(claim_due(cron, due + 5, "w1")) == 1
    assert cron.get("once").next_run is None and cron.next_due() is None
    assert claim_due(cron, due + 3600, "w1") == []


def test_paused_jobs_do_not_fire(any_store):
    cron = CronStore(any_store.handle)
    job = _job(cron)
    cron.set_paused(job.id, True, job.next_run)
    assert claim_due(cron, T0 + 3600, "w1") == []


def test_racing_workers_claim_each_fire_once(tmp_path, database_url):
    home = tmp_path / "home"
    open_store(home, database_url).close()
    stores = [open_store(home, database_url) for _ in range(6)]
    try:
        cron = CronStore(stores[0].handle)
        for name in ("a", "b", "c"):
            _job(cron, name)
        won: list[tuple[str, int]] = []

        def race(i: int) -> None:
            for minute in range(1, 4):
                for claim in claim_due(CronStore(stores[i].handle), T0 + 60 * minute + 1, f"w{i}"):
                    won.append((claim.job.name, claim.due))

        assert at_once(race, len(stores)) == []
        expected = sorted((n, T0 + 60 * m) for n in ("a", "b", "c") for m in range(1, 4))
        assert sorted(won) == expected  # every fire once, none twice
    finally:
        for store in stores:
            store.close()


def test_an_every_job_made_mid_second_fires_once_per_due_time(any_store):
    """The anchor kept its fraction of a second while next_run was
    stored whole, so each tick before the clock passed the fraction claimed the fire again."""
    cron = CronStore(any_store.handle)
    job = _job(cron, "often", "every 1m", created=T0 + 0.75)
    due = job.next_run
    claimed = [c.due for step in range(0, 100, 5)
               for c in claim_due(cron, due + step / 100, "w1")]
    assert claimed == [due]
    assert cron.get("often").next_run == due + 60
    assert len(cron.runs(job.id)) == 1


def test_every_schedule_form_claims_a_due_time_once_at_any_fraction(any_store):
    cron = CronStore(any_store.handle)
    once = parse("in 90s", "UTC", now=T0 + 0.3).text  # what the store keeps
    for name, schedule in (("c", "*/5 * * * *"), ("e", "every 2m"), ("o", once)):
        _job(cron, name, schedule, created=T0 + 0.3)
    seen: list[tuple[str, int]] = []
    for tenth in range(0, 10 * 60 * 12, 3):  # twelve minutes in steps of 0.3 s
        seen += [(c.job.name, c.due) for c in claim_due(cron, T0 + tenth / 10, "w1")]
    assert len(seen) == len(set(seen))  # never the same due time twice
    names = [n for n, _ in seen]
    assert (names.count("c"), names.count("e"), names.count("o")) == (3, 5, 1)


def test_a_schedulers_lease_says_it_runs_until_it_rests(any_store):
    """How `hermes cron status` knows a scheduler runs for this home, on both backends."""
    cron = CronStore(any_store.handle)
    assert cron.schedulers() == []
    cron.beat("w1")
    cron.beat("w2")
    cron.beat("w1")  # renewed, not doubled
    alive = cron.schedulers()
    assert sorted(w for w, _ in alive) == ["w1", "w2"] and all(0 <= s < 5 for _, s in alive)
    cron.rest("w1")
    assert [w for w, _ in cron.schedulers()] == ["w2"]
    assert cron.schedulers(time.time() + 3600) == []  # a worker that died: its row expires
