"""Gateway memory over many sessions: RSS after every 1,000 distinct sessions.

    .venv/bin/python bench/gateway_rss.py [--sessions 6000] [--every 1000]
                                          [--max-agents 128] [--threads 32]

The fake provider and `hermes gateway` (real CLI path, the default agent cache of 128)
run in their own processes; this one drives distinct sessions, one short turn each,
with the real `openai` client and reads the gateway's VmRSS from /proc. Once the agent
cache is full (128 sessions) the RSS must level off: the figure that matters is the
growth per 1,000 sessions between the first and the last sample.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import openai  # noqa: E402

from bench.gateway_load import KEY, Stack, rss_mb  # noqa: E402


def drive(base_url: str, sessions: int, every: int, threads: int, pid: int) -> list[tuple[int, float]]:
    """Run `sessions` one-turn sessions; (sessions done, RSS MB) every `every`."""
    client = openai.OpenAI(base_url=base_url, api_key=KEY, max_retries=2, timeout=60)
    lock = threading.Lock()
    counter = iter(range(sessions))
    samples: list[tuple[int, float]] = [(0, rss_mb(pid))]
    done = 0

    def worker() -> None:
        nonlocal done
        while True:
            with lock:
                index = next(counter, None)
            if index is None:
                return
            client.chat.completions.create(
                model="hermes", messages=[{"role": "user", "content": "hi"}],
                extra_headers={"X-Hermes-Session-Id": f"rss-{index}"})
            with lock:
                done += 1
                if done % every == 0:
                    samples.append((done, rss_mb(pid)))
                    print(f"  {done:>6} sessions  RSS {samples[-1][1]:7.1f} MB", flush=True)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=6000)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--max-agents", type=int, default=128)
    parser.add_argument("--threads", type=int, default=32)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hermes-rss-") as tmp:
        stack = Stack(Path(tmp), args.max_agents)
        try:
            start = time.perf_counter()
            samples = drive(stack.base_url, args.sessions, args.every, args.threads,
                            stack.gateway.pid)
            wall = time.perf_counter() - start
        finally:
            stack.stop()
    first = next((s for s in samples if s[0] >= args.every), samples[0])
    last = samples[-1]
    per_k = (last[1] - first[1]) / max(1, (last[0] - first[0]) / 1000)
    print(f"{last[0]} sessions in {wall:.0f} s; RSS {first[1]:.1f} MB at {first[0]:,}, "
          f"{last[1]:.1f} MB at {last[0]:,}: {per_k:+.1f} MB per 1,000 sessions "
          f"({per_k:+.0f} KB per session)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
