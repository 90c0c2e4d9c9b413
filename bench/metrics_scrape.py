"""`GET /metrics` time at N sessions: a store filled with N gateway sessions of
--keys client keys, --turns usage rows each (every fifth a keep-warm read, every
seventh a diagnosed miss; all older than a minute, as in a gateway that has run a
while: the first scrape reads them all, later ones only what is new), then a real `hermes gateway` process on it scraped with
the metrics key (urllib, one after the other), and the same render in process (the
two aggregate queries + the text) for the split.

    .venv/bin/python bench/metrics_scrape.py [--sessions 1000] [--turns 10] [--keys 50]
                                             [--scrapes 30]

Not a test; no timing asserts anywhere.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from bench.gateway_load import KEY, MODEL, spawn  # noqa: E402
from gateway.auth import owner_id  # noqa: E402
from gateway.metrics import Metrics, UsageTotals, exposition  # noqa: E402
from memory.store import SessionStore  # noqa: E402
from tests.helpers import HERMES, child_env  # noqa: E402

METRICS_KEY = "bench-metrics-key-0001"


def fill(home: Path, sessions: int, turns: int, keys: int) -> int:
    store = SessionStore(home / "state.db")
    rows = 0
    try:
        with store.handle.transaction():
            for s in range(sessions):
                sid = f"bench-{s:05d}"
                owner = owner_id(f"bench-client-key-{s % keys:04d}")
                store.create_session(sid, model=MODEL, provider="anthropic", system_prompt="x",
                                     source="gateway", owner=owner)
                for t in range(turns):
                    store.add_usage(sid, turn=t + 1, call_index=t + 1, uncached=12,
                                    write_5m=300 if t == 0 else 0, cache_read=4000, output=80,
                                    cost_usd=0.0021, kind="keep_warm" if t % 5 == 4 else "",
                                    miss_cause="ttl_expired" if t % 7 == 6 else None)
                    rows += 1
            # a gateway that has run for a while: its rows are older than a minute
            store.handle.execute("UPDATE usage SET created = ?", ["2026-01-01T00:00:00+00:00"])
    finally:
        store.close()
    return rows


def in_process(home: Path, scrapes: int) -> tuple[float, float, float, int]:
    """(s of a first read of every row, median s of a later read, median s of the text,
    bytes) in this process."""
    store = SessionStore(home / "state.db")
    metrics = Metrics("bench")
    later, texts, size = [], [], 0
    try:
        fresh = UsageTotals(store, clock=lambda: time.time() + 120)  # all rows settled
        started = time.perf_counter()
        fresh.read()
        first = time.perf_counter() - started
        for _ in range(scrapes):
            started = time.perf_counter()
            totals = fresh.read()
            queried = time.perf_counter()
            size = len(exposition(totals, metrics, cached_agents=0).encode())
            texts.append(time.perf_counter() - queried)
            later.append(queried - started)
    finally:
        store.close()
    return first, statistics.median(later), statistics.median(texts), size


def over_http(home: Path, tmp: Path, scrapes: int) -> list[float]:
    (home / "config.yaml").write_text(yaml.safe_dump({
        "provider": "anthropic", "model": MODEL, "api_key": "bench-provider-key",
        "base_url": "http://127.0.0.1:9",
        "gateway": {"api_key": KEY, "metrics_key": METRICS_KEY, "access_log": "off"}}))
    proc, line = spawn([*HERMES, "gateway", "--port", "0"], child_env(home), tmp,
                       "listening on", tmp / "gateway.log")
    url = line.split()[4].removesuffix("/v1") + "/metrics"
    times = []
    try:
        for _ in range(scrapes):
            request = urllib.request.Request(url, headers={
                "Authorization": f"Bearer {METRICS_KEY}"})
            started = time.perf_counter()
            with urllib.request.urlopen(request, timeout=60) as answer:
                answer.read()
            times.append(time.perf_counter() - started)
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--keys", type=int, default=50)
    parser.add_argument("--scrapes", type=int, default=30)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir(mode=0o700)
        rows = fill(home, args.sessions, args.turns, args.keys)
        first, query, text, size = in_process(home, args.scrapes)
        times = over_http(home, Path(tmp), args.scrapes)
    first_http, times = times[0], sorted(times[1:])
    print(f"/metrics at {args.sessions} sessions, {args.keys} keys, {rows} usage rows "
          f"({size:,} bytes of text), median of {args.scrapes}:")
    print(f"  over HTTP (real gateway, SQLite): first scrape {first_http * 1e3:.2f} ms (reads "
          f"every row), then median {statistics.median(times) * 1e3:.2f} ms "
          f"(p90 {times[int(len(times) * 0.9) - 1] * 1e3:.2f} ms)")
    print(f"  in process: first read of every row {first * 1e3:7.2f} ms; later reads (nothing "
          f"new) {query * 1e3:.2f} ms; the text {text * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
