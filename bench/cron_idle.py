"""Scheduler CPU when idle: CPU seconds a `hermes gateway` worker (fresh interpreter, no
chat platform) uses over 60 s with jobs defined and none due, from /proc/PID/stat.

    .venv/bin/python bench/cron_idle.py [SECONDS] [--no-jobs]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import tempfile  # noqa: E402

from frontend.config.settings import load_settings  # noqa: E402
from frontend.cron.jobs import JobSpec, create  # noqa: E402
from memory import open_store  # noqa: E402
from memory.cron import CronStore  # noqa: E402
from tests.fakes import FakeProvider  # noqa: E402
from tests.fakes.gateway_workers import Worker, write_config  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    seconds = float(next((a for a in sys.argv[1:] if not a.startswith("-")), 60))
    jobs = "--no-jobs" not in sys.argv
    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        home = Path(tmp) / "home"
        home.mkdir(mode=0o700)
        write_config(home, fake.anthropic_base_url)
        if jobs:
            settings = load_settings(home)
            with open_store(home, None) as store:
                for i, schedule in enumerate(("0 8 * * 1-5", "0 18 * * 5", "at 2027-06-01 09:00")):
                    create(settings, CronStore(store.handle),
                           JobSpec(schedule, f"job {i}", "none", f"job{i}"), cwd=Path(tmp))
        worker = Worker(home, forked=False)
        try:
            time.sleep(2)  # start-up settles (imports, first tick)
            before = cpu_seconds(worker.pid)
            time.sleep(seconds)
            used = cpu_seconds(worker.pid) - before
        finally:
            worker.stop()
    print(f"gateway idle {'with 3 jobs' if jobs else 'without jobs'}: {used:.3f} CPU s over "
          f"{seconds:.0f} s ({100 * used / seconds:.3f}% of a core)")


if __name__ == "__main__":
    main()
