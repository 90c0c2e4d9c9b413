"""Gateway worker CPU per turn, for several source trees side by side in one run.

One fake provider process; one `hermes gateway` process per tree (PYTHONPATH=tree);
one session per gateway, turns sent one after the other with the real `openai` client.
The gateways get one turn each in turn (the order rotating), so the load of a shared
machine hits them alike; a round is `--turns` turns of each, and each round gives every
tree a ratio to the first tree's CPU in that round (paired: the load drifts slower than
a round). CPU = utime + stime of the gateway process (all its threads) from
/proc/<pid>/stat.

    .venv/bin/python bench/gateway_cpu.py --tree /tmp/base --tree . [--rounds 8] [--turns 25]
    .venv/bin/python bench/gateway_cpu.py --ops      # one tree: metrics+tracing off vs on

`--ops`: two gateways of the same tree, the second with `gateway.metrics_key` set and
OTLP export on (OTEL_EXPORTER_OTLP_ENDPOINT at a local receiver in this process,
tests/fakes/otlp.py): per turn, the spans, their export and the metrics' counting.
The two get one turn each in turn (not a round each), so the load of a shared machine
hits both alike. A scrape is a cost per scrape, not per turn: after each round the
"on" gateway is scraped once outside the timed turns, its CPU printed apart.

Not a test; no timing asserts anywhere.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import openai  # noqa: E402
import yaml  # noqa: E402

from bench.gateway_load import KEY, MODEL, spawn  # noqa: E402
from tests.fakes.otlp import OtlpReceiver  # noqa: E402
from tests.helpers import HERMES, child_env  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


METRICS_KEY = "bench-metrics-key-0001"


def gateway(tree: Path, tmp: Path, fake_url: str, otlp: str | None = None):
    """A gateway process of `tree`; with `otlp` (an endpoint) metrics and tracing on."""
    home = tmp / "home"
    home.mkdir(parents=True)
    settings = {"api_key": KEY, "max_agents": 16, "workers": 8}
    if otlp:
        settings["metrics_key"] = METRICS_KEY
    (home / "config.yaml").write_text(yaml.safe_dump({
        "provider": "anthropic", "model": MODEL, "api_key": "bench-provider-key",
        "base_url": fake_url, "gateway": settings,
    }))
    work = tmp / "work"
    work.mkdir()
    env = child_env(home, **({"OTEL_EXPORTER_OTLP_ENDPOINT": otlp} if otlp else {}))
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(tree)])
    proc, line = spawn([*HERMES, "gateway", "--port", "0"], env, work, "listening on",
                       tmp / "gateway.log")
    client = openai.OpenAI(base_url=line.split()[4], api_key=KEY, max_retries=0, timeout=60)
    return proc, client


def turns(client: openai.OpenAI, count: int, stream: bool, start: int = 0) -> None:
    for t in range(start, start + count):
        kwargs = {"model": "hermes", "messages": [{"role": "user", "content": f"turn {t}: say ok"}],
                  "extra_headers": {"X-Hermes-Session-Id": "cpu"}}
        if stream:
            for _ in client.chat.completions.create(stream=True, **kwargs):
                pass
        else:
            client.chat.completions.create(**kwargs)


def scrape(client: openai.OpenAI) -> None:
    url = str(client.base_url).removesuffix("/").removesuffix("/v1") + "/metrics"
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {METRICS_KEY}"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        answer.read()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", type=Path)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--turns", type=int, default=25)
    parser.add_argument("--stream", action="store_true")
    parser.add_argument("--ops", action="store_true",
                        help="one tree, metrics+tracing off vs on (see the docstring)")
    args = parser.parse_args(argv)
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    legs = ([("ops off", trees[0], False), ("ops on", trees[0], True)] if args.ops
            else [(str(tree)[-40:], tree, False) for tree in trees])
    per_turn: dict[str, list[float]] = {label: [] for label, _, _ in legs}
    scrapes: list[float] = []
    procs = []
    with tempfile.TemporaryDirectory() as tmp, OtlpReceiver() as otlp:
        env = child_env(Path(tmp), PYTHONPATH=str(ROOT))
        fake, line = spawn([sys.executable, "-m", "tests.fakes.server", "--port", "0"],
                           env, ROOT, "fake provider", Path(tmp) / "fake.log")
        procs.append(fake)
        try:
            stacks = []
            for i, (label, tree, ops) in enumerate(legs):
                proc, client = gateway(tree, Path(tmp) / f"g{i}", line.split()[3],
                                       otlp.endpoint if ops else None)
                procs.append(proc)
                turns(client, 10, args.stream)  # warm-up: imports, agent built, caches
                stacks.append((label, proc, client, ops))
            for n in range(args.rounds):  # one turn each in turn: load hits all alike
                before = [cpu_seconds(proc.pid) for _, proc, _, _ in stacks]
                for t in range(args.turns):
                    shift = (n * args.turns + t) % len(stacks)
                    for _, _, client, _ in stacks[shift:] + stacks[:shift]:
                        turns(client, 1, args.stream, start=n * args.turns + t)
                for (label, proc, _, _), cpu in zip(stacks, before, strict=True):
                    per_turn[label].append((cpu_seconds(proc.pid) - cpu) / args.turns)
                if args.ops:
                    _, proc, client, _ = stacks[1]
                    cpu = cpu_seconds(proc.pid)
                    scrape(client)
                    scrapes.append(cpu_seconds(proc.pid) - cpu)
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=15)
        spans = len(otlp.spans)
    first = per_turn[legs[0][0]]
    print(f"gateway CPU per turn ({'streamed' if args.stream else 'non-streamed'}; median of "
          f"{args.rounds} rounds x {args.turns} turns), ms; paired = median of the per-round "
          "ratios to the first (quartiles)")
    for label, _, _ in legs:
        median = statistics.median(per_turn[label])
        ratios = sorted(x / f for f, x in zip(first, per_turn[label], strict=True))
        print(f"{label:40} {median * 1e3:7.2f}  (min {min(per_turn[label]) * 1e3:.2f})"
              f"  ratio of medians {median / statistics.median(first):.3f}"
              f"  paired {statistics.median(ratios):.3f} ({ratios[len(ratios) // 4]:.3f} .. "
              f"{ratios[3 * len(ratios) // 4]:.3f})")
    if args.ops:
        print(f"spans received by the OTLP receiver: {spans}; CPU per /metrics scrape "
              f"{statistics.mean(scrapes) * 1e3:.1f} ms (mean of {len(scrapes)}; the rows of "
              f"the last minute are re-read each time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
