"""Per-turn store overhead, SQLite vs PostgreSQL: the store work of one turn without
the model - take the session lock, append the user message, append the assistant
message, add a usage row, update the session, release the lock.

PostgreSQL is a local server this script starts (tests/fakes/postgres.py; needs its
binaries), once durable (fsync and synchronous commit on: the server defaults) and once
as the tests run it (both off, like SQLite's synchronous=NORMAL losing nothing on a
process crash); or pass --url for a server of your own. Prints medians and p90 per
turn, and the lock's share. Not a test; no timing asserts anywhere.

    .venv/bin/python bench/store_overhead.py [--turns 300] [--url postgresql://...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memory import open_store  # noqa: E402

TEXT = "a user question of a typical length, with some words to index " * 4


def one_turn(store, sid: str, n: int) -> tuple[float, float]:
    """(seconds for the whole turn, seconds of it spent taking and releasing the lock)."""
    started = time.perf_counter()
    lock = store.lock_session(sid, purpose="bench")
    lock.acquire(0)
    locked = time.perf_counter()
    store.append_message(sid, role="user", content=f"{TEXT} {n}")
    store.append_message(sid, role="assistant", content=f"an answer {n} " * 20)
    store.add_usage(sid, turn=n, uncached=12, write_5m=0, cache_read=4000, output=80,
                    cost_usd=0.0021)
    store.update_session(sid, title=f"turn {n}")
    unlocking = time.perf_counter()
    lock.release()
    done = time.perf_counter()
    return done - started, (locked - started) + (done - unlocking)


def measure(home: Path, url: str | None, turns: int) -> dict[str, float]:
    """Median / p90 milliseconds per turn and the lock's median on one backend."""
    with open_store(home, url) as store:
        store.create_session("bench", model="m", provider="p", system_prompt="s")
        for n in range(10):  # warm up
            one_turn(store, "bench", n)
        totals, locks = [], []
        for n in range(turns):
            total, lock = one_turn(store, "bench", 10 + n)
            totals.append(total * 1000)
            locks.append(lock * 1000)
    cuts = statistics.quantiles(totals, n=10)
    return {"median_ms": statistics.median(totals), "p90_ms": cuts[-1],
            "lock_median_ms": statistics.median(locks)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--url", help="a PostgreSQL database to use instead of a local server")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite (WAL, synchronous=NORMAL)"] = measure(Path(tmp), None, args.turns)
    if args.url:
        with tempfile.TemporaryDirectory() as tmp:
            results["postgresql (--url)"] = measure(Path(tmp), args.url, args.turns)
    else:
        from tests.fakes.postgres import PostgresServer

        for durable, label in ((True, "durable: fsync+sync commit"),
                               (False, "fsync/sync commit off")):
            server = PostgresServer().start(durable=durable)
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    results[f"postgresql local ({label})"] = measure(
                        Path(tmp), server.new_database(), args.turns)
            finally:
                server.stop()
    print(f"per-turn store overhead, {args.turns} turns (lock + 2 messages + usage + update)")
    for name, row in results.items():
        print(f"  {name:44s} median {row['median_ms']:6.2f} ms  p90 {row['p90_ms']:6.2f} ms"
              f"  (lock take+release median {row['lock_median_ms']:5.2f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
