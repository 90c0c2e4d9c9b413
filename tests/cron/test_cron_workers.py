"""Two `hermes gateway` worker processes on one PostgreSQL: each fire of each job runs
exactly once (wire tier; the scheduler's clock is the test's file,
HERMES_CRON_CLOCK_FILE, so nobody waits for a real minute)."""

from __future__ import annotations

import time

import pytest

from frontend.config.settings import load_settings
from frontend.cron.jobs import JobSpec, create
from memory import open_store
from memory.cron import CronStore
from tests.fakes import FakeProvider
from tests.fakes.gateway_workers import start_workers, stop_workers, write_config
from tests.helpers import wait_until

pytestmark = pytest.mark.wire

NAMES = ("one", "two", "three")


def _runs(store) -> list[dict]:
    return store.handle.rows("SELECT j.name, r.due, r.status, r.worker FROM cron_runs r"
                             " JOIN cron_jobs j ON j.id = r.job_id")


def test_two_workers_on_postgres_run_each_fire_once(tmp_path, postgres_server):
    url = postgres_server.new_database()
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    clock = tmp_path / "clock"
    start = (int(time.time()) // 60 + 10 * 24 * 60) * 60  # a whole minute, ten days ahead
    clock.write_text(str(start + 5), encoding="utf-8")
    with FakeProvider(min_cache_tokens=64) as fake:
        write_config(home, fake.anthropic_base_url)
        settings = load_settings(home)
        with open_store(home, url) as store:
            cron = CronStore(store.handle)
            for name in NAMES:
                create(settings, cron, JobSpec("* * * * *", f"job {name}: say ok", "none", name,
                                               tz="UTC"), cwd=tmp_path, now=start + 5)
        workers = start_workers(home, 2, database_url=url,
                                env={"HERMES_CRON_CLOCK_FILE": str(clock)})
        try:
            with open_store(home, url) as store:
                for minute in (1, 2, 3):
                    clock.write_text(str(start + 60 * minute + 1), encoding="utf-8")
                    wait_until(lambda m=minute: len([r for r in _runs(store) if r["status"] == "ok"])
                               == 3 * m, timeout=30, what=f"minute {minute}'s runs")
                # each worker ticks every 0.2 s on the file clock, so both saw every
                # minute many times while the runs' model calls went on
                runs = _runs(store)
        finally:
            stop_workers(workers)
    fires = sorted((r["name"], r["due"]) for r in runs)
    assert fires == sorted((n, start + 60 * m) for n in NAMES for m in (1, 2, 3))
    assert len(fake.requests) == 9  # one model call per fire, none twice
