"""Gateway load bench: many concurrent sessions through `hermes gateway` with the real
`openai` client, against the fake Anthropic provider.

    .venv/bin/python bench/gateway_load.py [--sessions 50] [--turns 10]
                                           [--many 5000] [--budget 90]

Processes: the fake provider (`python -m tests.fakes.server`) and the gateway
(`python -m hermes_cli gateway --port 0`, real CLI path, agent cap 128) each run in
their own process; this process only drives clients (threads), so the three do not
share a GIL. Phases:

0. idle: one session, 20 turns one after the other, and the same bodies replayed
   straight to the fake: the gateway's own per-turn cost without queueing.
1. load: N sessions x T turns, one thread per session, non-streamed completions.
   Per-session hit rate = sum(cached_tokens) / sum(prompt_tokens) from the responses.
2. baseline: the exact request bodies the gateway sent (read back from the fake),
   replayed with the `anthropic` SDK straight to the fake, same concurrency. The
   gateway's added latency = gateway percentile - direct percentile, also as a ratio.
3. many: M distinct sessions, one short turn each (short-turn mode), 50 threads, with
   the gateway's RSS sampled as it goes: with the cap at 128 it must level off.
   Stops at --budget seconds and extrapolates (says so) if M was not reached.

RSS is the gateway process's VmRSS from /proc/<pid>/status. Per cached agent = RSS
delta over the load phase / the agents it added (one per session).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import openai  # noqa: E402
import yaml  # noqa: E402

from tests.helpers import HERMES, child_env  # noqa: E402

KEY = "bench-gateway-key-0001"
MODEL = "claude-sonnet-5-5"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def spawn(argv: list[str], env: dict[str, str], cwd: Path, marker: str,
          log: Path) -> tuple[subprocess.Popen, str]:
    """Start a process and return it with its first stdout line containing `marker`."""
    proc = subprocess.Popen(argv, env=env, cwd=cwd, text=True, stdout=subprocess.PIPE,
                            stderr=log.open("w"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if marker in line:
            return proc, line
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError(f"{argv} did not start: see {log}")


class Stack:
    """The fake provider and the gateway, each in its own process."""

    def __init__(self, tmp: Path, max_agents: int) -> None:
        env = child_env(tmp, PYTHONPATH=str(ROOT))
        self.fake, line = spawn([sys.executable, "-m", "tests.fakes.server", "--port", "0"],
                                env, ROOT, "fake provider", tmp / "fake.log")
        self.fake_url = line.split()[3]
        home = tmp / "home"
        home.mkdir()
        (home / "config.yaml").write_text(yaml.safe_dump({
            "provider": "anthropic", "model": MODEL, "api_key": "bench-provider-key",
            "base_url": self.fake_url,
            "gateway": {"api_key": KEY, "max_agents": max_agents, "workers": 64},
        }))
        work = tmp / "work"
        work.mkdir()
        self.gateway, line = spawn([*HERMES, "gateway", "--port", "0"],
                                   child_env(home, PYTHONPATH=str(ROOT)), work,
                                   "listening on", tmp / "gateway.log")
        self.base_url = line.split()[4]

    def rss(self) -> float:
        return rss_mb(self.gateway.pid)

    def fake_requests(self) -> list[dict]:
        with urllib.request.urlopen(self.fake_url + "/_fake/requests") as response:
            return json.load(response)

    def fake_reset(self) -> None:
        request = urllib.request.Request(self.fake_url + "/_fake/reset", data=b"{}")
        urllib.request.urlopen(request).close()

    def stop(self) -> None:
        for proc in (self.gateway, self.fake):
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


def turn(client: openai.OpenAI, session: str, text: str) -> tuple[float, int, int]:
    """(seconds, prompt_tokens, cached_tokens) of one gateway turn."""
    start = time.perf_counter()
    reply = client.chat.completions.create(
        model="hermes", messages=[{"role": "user", "content": text}],
        extra_headers={"X-Hermes-Session-Id": session})
    elapsed = time.perf_counter() - start
    usage = reply.usage
    return elapsed, usage.prompt_tokens, usage.prompt_tokens_details.cached_tokens or 0


def load_phase(client: openai.OpenAI, sessions: int, turns: int) -> dict:
    def one_session(index: int) -> list[tuple[float, int, int]]:
        return [turn(client, f"load-{index}", f"turn {t} of session {index}: say ok")
                for t in range(turns)]

    start = time.perf_counter()
    with ThreadPoolExecutor(sessions) as pool:
        results = list(pool.map(one_session, range(sessions)))
    wall = time.perf_counter() - start
    latencies = [r[0] for rows in results for r in rows]
    hit_rates = [sum(r[2] for r in rows) / sum(r[1] for r in rows) for rows in results]
    return {"wall": wall, "latencies": latencies, "hit_rates": hit_rates,
            "turns": sessions * turns}


def direct_phase(fake_url: str, bodies: list[dict], workers: int) -> list[float]:
    """Replay the gateway's request bodies with the anthropic SDK straight to the fake."""
    import anthropic

    client = anthropic.Anthropic(base_url=fake_url, api_key="bench-provider-key",
                                 max_retries=0)
    known = ("model", "max_tokens", "system", "messages", "tools")

    def call(body: dict) -> float:
        kwargs = {k: body[k] for k in known if k in body}
        extra = {k: v for k, v in body.items() if k not in known and k != "stream"}
        start = time.perf_counter()
        with client.messages.create(**kwargs, stream=True, extra_body=extra) as stream:
            for _event in stream:
                pass
        return time.perf_counter() - start

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(call, bodies))


def many_phase(stack: Stack, client: openai.OpenAI, count: int, budget: float,
               workers: int = 50) -> dict:
    """Distinct sessions, one short turn each, until `count` or the time budget."""
    done = 0
    lock = threading.Lock()
    stop_at = time.monotonic() + budget
    samples: list[tuple[int, float]] = [(0, stack.rss())]
    next_sample = max(1, count // 10)
    counter = iter(range(count))

    def worker() -> None:
        nonlocal done, next_sample
        while time.monotonic() < stop_at:
            with lock:
                index = next(counter, None)
            if index is None:
                return
            turn(client, f"many-{index}", "hi")
            with lock:
                done += 1
                if done >= next_sample:
                    samples.append((done, stack.rss()))
                    next_sample += max(1, count // 10)

    start = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - start
    samples.append((done, stack.rss()))
    return {"done": done, "wall": wall, "samples": samples}


def idle_phase(stack: Stack, client: openai.OpenAI, turns: int = 20) -> tuple[list, list]:
    """(gateway, direct) latencies of one session's turns, one at a time."""
    stack.fake_reset()
    via = [turn(client, "idle", f"idle turn {t}: say ok")[0] for t in range(turns)]
    bodies = [r["body"] for r in stack.fake_requests() if r["status"] == 200]
    return via, direct_phase(stack.fake_url, bodies, 1)


def _latency_table(title: str, gw: list[float], direct: list[float]) -> None:
    p = {q: (percentile(gw, q) * 1000, percentile(direct, q) * 1000) for q in (50, 99)}
    print(f"  {title:<22}  p50 ms   p99 ms")
    print(f"    via gateway        {p[50][0]:8.1f} {p[99][0]:8.1f}")
    print(f"    direct SDK->fake   {p[50][1]:8.1f} {p[99][1]:8.1f}   (same bodies, same concurrency)")
    print(f"    added by gateway   {p[50][0] - p[50][1]:8.1f} {p[99][0] - p[99][1]:8.1f}")
    print(f"    ratio gw/direct    {p[50][0] / p[50][1]:7.2f}x {p[99][0] / p[99][1]:7.2f}x")


def cli_hit_rate(turns: int) -> float:
    """The same session script run by the CLI's runtime (an in-process AIAgent, as
    `hermes` builds it) against its own fake provider: the hit rate to compare with."""
    from agent.agent import AIAgent
    from agent.config import AgentConfig
    from agent.providers.base import ProviderSettings
    from memory.store import SessionStore
    from tests.fakes import FakeProvider

    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        home = Path(tmp)
        settings = ProviderSettings("anthropic", MODEL, "bench", fake.anthropic_base_url)
        agent = AIAgent(AgentConfig(provider=settings, home=home, cwd=home),
                        SessionStore(home / "state.db"))
        for t in range(turns):
            for _ in agent.run_turn(f"turn {t} of session 0: say ok"):
                pass
        agent.close()
        records = [r for r in fake.requests if r.status == 200]
        return sum(r.cache_read for r in records) / sum(r.prompt_tokens for r in records)


def report(args, idle: tuple[list, list], load: dict, direct: list[float],  # noqa: PLR0913
           rss: tuple[float, float, float], many: dict) -> None:
    print(f"gateway load bench: {args.sessions} sessions x {args.turns} turns, "
          f"{os.cpu_count()} cores, fake Anthropic provider in its own process")
    _latency_table("idle (1 client)", *idle)
    print(f"  throughput           {load['turns'] / load['wall']:8.1f} turns/s "
          f"({load['turns']} turns in {load['wall']:.1f} s)")
    _latency_table(f"under load ({args.sessions} clients)", load["latencies"], direct)
    rates = load["hit_rates"]
    print(f"  hit rate per session  min {min(rates):.1%}  median {statistics.median(rates):.1%}"
          f"  (turn 1 of each session is a cold write)")
    print(f"  same script via the CLI runtime: {cli_hit_rate(args.turns):.1%} "
          "(in-process AIAgent, its own fake provider)")
    before, after, agents = rss
    print(f"  RSS per cached agent  {(after - before) / agents * 1024:8.0f} KiB "
          f"({before:.0f} -> {after:.0f} MiB for {agents:.0f} agents)")
    samples = many["samples"]
    print(f"  distinct sessions     {many['done']} of {args.many} in {many['wall']:.1f} s "
          f"({many['done'] / many['wall']:.1f} sessions/s), cap 128")
    print("    RSS MiB by sessions " + "  ".join(f"{n}:{mb:.0f}" for n, mb in samples))
    if many["done"] < args.many:
        rate = many["done"] / many["wall"]
        print(f"    budget reached: {args.many} sessions would take ~{args.many / rate:.0f} s "
              "at this rate (extrapolated, not run)")
    tail = [mb for n, mb in samples if n >= min(many["done"], 1000)]
    if len(tail) >= 2:
        print(f"    after 1,000 sessions RSS moved {tail[-1] - tail[0]:+.1f} MiB "
              f"(min {min(tail):.0f}, max {max(tail):.0f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--many", type=int, default=5000)
    parser.add_argument("--budget", type=float, default=90.0, help="seconds for the many phase")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        stack = Stack(Path(tmp), max_agents=128)
        try:
            client = openai.OpenAI(base_url=stack.base_url, api_key=KEY, max_retries=0,
                                   timeout=120)
            turn(client, "warm-up", "hi")  # imports the SDK in the gateway, one agent
            idle = idle_phase(stack, client)
            stack.fake_reset()
            before = stack.rss()
            load = load_phase(client, args.sessions, args.turns)
            after = stack.rss()
            bodies = [r["body"] for r in stack.fake_requests() if r["status"] == 200]
            direct = direct_phase(stack.fake_url, bodies, args.sessions)
            many = many_phase(stack, client, args.many, args.budget)
        finally:
            stack.stop()
    report(args, idle, load, direct, (before, after, args.sessions), many)
    return 0


if __name__ == "__main__":
    sys.exit(main())
