"""Scale-out bench: 100 sessions x 10 turns on 1, 2 and 4 `hermes gateway` workers over
one database (PostgreSQL, and SQLite files in one HERMES_HOME), against the fake
Anthropic provider. Everything listens on 127.0.0.1.

    .venv/bin/python bench/scaleout.py [--sessions 100] [--turns 10] [--workers 1,2,4]
                                       [--backends postgres,sqlite] [--json out.json]

Processes: the fake provider (`python -m tests.fakes.server`, cache minimum 64 tokens
as in the tests, so the small prompts are cacheable), N workers (`hermes
gateway --port 0 [--database-url URL]`, the real CLI path), the PostgreSQL server
(tests/fakes/postgres.py: initdb + pg_ctl, fsync off) and this client process (one
thread per session, the real `openai` client). Each run gets a fresh HERMES_HOME and
a fresh database, so nothing is warm from the run before; each worker answers one
warm-up turn (SDK import, first agent) before the clock starts.

Per run (backend, N workers, routing):
- throughput: turns / wall seconds; p50 / p99 turn latency (client side);
- read share: per session sum(cached_tokens) / sum(prompt_tokens) from the responses,
  averaged over sessions - with `bounce` (turn t of session s goes to worker
  (s + t) mod N: every turn lands on another worker than the turn before, so each
  turn rebuilds the agent from the stored prompt) and `pinned` (session s always on
  worker s mod N: what an affinity-hashing load balancer gives);
- CPU seconds of each party over the run (/proc/<pid>/stat utime+stime): the workers,
  the fake provider, PostgreSQL (the postmaster and its backends), this client.
Then `store overhead`: one session, 60 turns one after the other on one worker, p50
latency and CPU ms per turn of the worker + PostgreSQL, per backend - the same turn on
SQLite vs PostgreSQL end to end (bench/store_overhead.py times the store calls alone).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import openai  # noqa: E402

from tests.fakes.gateway_workers import Worker, write_config  # noqa: E402
from tests.helpers import KEY_A, child_env  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))]


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of `pids` (a process gone counts 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / TICK


def children_of(pid: int) -> list[int]:
    """`pid` and its direct children (PostgreSQL's backends and helpers)."""
    found = [pid]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


def postmaster_pid(server) -> int:
    return int((server.data / "postmaster.pid").read_text().split()[0])


class FakeProcess:
    def __init__(self, tmp: Path) -> None:
        log = (tmp / "fake.log").open("w")
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.server", "--port", "0",
                                      "--min-cache-tokens", "64"],
                                     env=child_env(tmp, PYTHONPATH=str(ROOT)), cwd=ROOT,
                                     text=True, stdout=subprocess.PIPE, stderr=log)
        line = self.proc.stdout.readline()
        if "fake provider" not in line:
            raise RuntimeError(f"fake provider did not start: see {tmp / 'fake.log'}")
        self.url = line.split()[3]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=15)


def run(fake: FakeProcess, pg, backend: str, count: int, routing: str, sessions: int,
        turns: int) -> dict:
    """One run on fresh state: `count` workers, `sessions` x `turns`, routed as asked."""
    tmp = Path(tempfile.mkdtemp(prefix="hermes-scaleout-"))
    home = tmp / "home"
    home.mkdir(mode=0o700)
    write_config(home, fake.url, workers=64, max_agents=256)
    url = pg.new_database() if backend == "postgres" else None
    workers = [Worker(home, database_url=url, env={"PYTHONPATH": str(ROOT)}, forked=False)
               for _ in range(count)]
    try:
        clients = [openai.OpenAI(base_url=w.base_url, api_key=KEY_A, max_retries=0, timeout=120)
                   for w in workers]
        for index, client in enumerate(clients):  # SDK imports and first build: not measured
            client.chat.completions.create(
                model="hermes", extra_headers={"X-Hermes-Session-Id": f"warm{index}"},
                messages=[{"role": "user", "content": "warm up"}])

        def one_session(index: int) -> list[tuple[float, int, int]]:
            rows = []
            for t in range(turns):
                at = (index + t) % count if routing == "bounce" else index % count
                start = time.perf_counter()
                reply = clients[at].chat.completions.create(
                    model="hermes", extra_headers={"X-Hermes-Session-Id": f"s{index}"},
                    messages=[{"role": "user", "content": f"turn {t} of session {index}: ok?"}])
                usage = reply.usage
                rows.append((time.perf_counter() - start, usage.prompt_tokens,
                             usage.prompt_tokens_details.cached_tokens or 0))
            return rows

        parties = {"workers": [w.pid for w in workers], "fake": [fake.proc.pid],
                   "client": [os.getpid()]}
        if url:
            parties["postgres"] = children_of(postmaster_pid(pg))
        before = {name: cpu_seconds(pids) for name, pids in parties.items()}
        start = time.perf_counter()
        with ThreadPoolExecutor(sessions) as pool:
            results = list(pool.map(one_session, range(sessions)))
        wall = time.perf_counter() - start
        if url:  # backends opened during the run (one per session lock) count too
            parties["postgres"] = children_of(postmaster_pid(pg))
        cpu = {name: round(cpu_seconds(pids) - before.get(name, 0.0), 1)
               for name, pids in parties.items()}
    finally:
        for worker in workers:
            worker.stop()
    latencies = [r[0] for rows in results for r in rows]
    shares = [sum(r[2] for r in rows[1:]) / max(1, sum(r[1] for r in rows[1:]))
              for rows in results]  # turn 1 of a session has nothing to read
    return {"backend": backend, "workers": count, "routing": routing,
            "turns": sessions * turns, "wall_s": round(wall, 2),
            "turns_per_s": round(sessions * turns / wall, 1),
            "p50_ms": round(percentile(latencies, 50) * 1000, 1),
            "p99_ms": round(percentile(latencies, 99) * 1000, 1),
            "read_share": round(statistics.mean(shares), 4),
            "min_read_share": round(min(shares), 4), "cpu_s": cpu}


def store_overhead(fake: FakeProcess, pg, backend: str, turns: int = 60) -> dict:
    """One session's turns, one after the other, on one worker: p50 latency and the
    CPU of the worker + PostgreSQL per turn (robust on a shared machine)."""
    tmp = Path(tempfile.mkdtemp(prefix="hermes-scaleout-"))
    home = tmp / "home"
    home.mkdir(mode=0o700)
    write_config(home, fake.url)
    url = pg.new_database() if backend == "postgres" else None
    worker = Worker(home, database_url=url, env={"PYTHONPATH": str(ROOT)}, forked=False)
    try:
        client = openai.OpenAI(base_url=worker.base_url, api_key=KEY_A, max_retries=0)
        times = []

        def ask(t: int) -> None:
            start = time.perf_counter()
            client.chat.completions.create(
                model="hermes", extra_headers={"X-Hermes-Session-Id": "seq"},
                messages=[{"role": "user", "content": f"sequential turn {t}"}])
            times.append(time.perf_counter() - start)
        ask(0)  # SDK import, the agent's first build: not measured
        pids = [worker.pid] + (children_of(postmaster_pid(pg)) if url else [])
        before = cpu_seconds(pids)
        for t in range(1, turns + 1):
            ask(t)
        if url:
            pids = [worker.pid] + children_of(postmaster_pid(pg))
        cpu = cpu_seconds(pids) - before
    finally:
        worker.stop()
    return {"backend": backend, "turns": turns,
            "p50_ms": round(percentile(times[1:], 50) * 1000, 1),
            "mean_ms": round(statistics.mean(times[1:]) * 1000, 1),
            "cpu_ms_per_turn_worker_and_db": round(cpu / turns * 1000, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--backends", default="postgres,sqlite")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",")]
    backends = args.backends.split(",")
    from tests.fakes.postgres import PostgresServer

    tmp = Path(tempfile.mkdtemp(prefix="hermes-scaleout-"))
    fake = FakeProcess(tmp)
    pg = PostgresServer().start() if "postgres" in backends else None
    out: dict = {"runs": [], "store_overhead": [], "cpus": os.cpu_count()}
    try:
        for backend in backends:
            for count in counts:
                for routing in ("pinned", "bounce") if count > 1 else ("pinned",):
                    result = run(fake, pg, backend, count, routing, args.sessions, args.turns)
                    out["runs"].append(result)
                    print(json.dumps(result), flush=True)
        for backend in backends:
            result = store_overhead(fake, pg, backend)
            out["store_overhead"].append(result)
            print(json.dumps(result), flush=True)
    finally:
        fake.stop()
        if pg is not None:
            pg.stop()
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
