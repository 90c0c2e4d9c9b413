"""Gateway worker CPU per turn, for several source trees side by side in one run.

One fake provider process; one `hermes gateway` process per tree (PYTHONPATH=tree);
one session per gateway, turns sent one after the other with the real `openai` client,
in rounds that alternate between the gateways so machine noise hits them alike. CPU =
utime + stime of the gateway process (all its threads) from /proc/<pid>/stat.

    .venv/bin/python bench/gateway_cpu.py --tree /tmp/base --tree . [--rounds 8] [--turns 25]

Not a test; no timing asserts anywhere.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import openai  # noqa: E402
import yaml  # noqa: E402

from bench.gateway_load import KEY, MODEL, spawn  # noqa: E402
from tests.helpers import HERMES, child_env  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def gateway(tree: Path, tmp: Path, fake_url: str):
    home = tmp / "home"
    home.mkdir(parents=True)
    (home / "config.yaml").write_text(yaml.safe_dump({
        "provider": "anthropic", "model": MODEL, "api_key": "bench-provider-key",
        "base_url": fake_url, "gateway": {"api_key": KEY, "max_agents": 16, "workers": 8},
    }))
    work = tmp / "work"
    work.mkdir()
    env = child_env(home)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(tree)])
    proc, line = spawn([*HERMES, "gateway", "--port", "0"], env, work, "listening on",
                       tmp / "gateway.log")
    client = openai.OpenAI(base_url=line.split()[4], api_key=KEY, max_retries=0, timeout=60)
    return proc, client


def turns(client: openai.OpenAI, count: int, stream: bool) -> None:
    for t in range(count):
        kwargs = {"model": "hermes", "messages": [{"role": "user", "content": f"turn {t}: say ok"}],
                  "extra_headers": {"X-Hermes-Session-Id": "cpu"}}
        if stream:
            for _ in client.chat.completions.create(stream=True, **kwargs):
                pass
        else:
            client.chat.completions.create(**kwargs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", type=Path)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--turns", type=int, default=25)
    parser.add_argument("--stream", action="store_true")
    args = parser.parse_args(argv)
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    per_turn: dict[Path, list[float]] = {tree: [] for tree in trees}
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        env = child_env(Path(tmp), PYTHONPATH=str(ROOT))
        fake, line = spawn([sys.executable, "-m", "tests.fakes.server", "--port", "0"],
                           env, ROOT, "fake provider", Path(tmp) / "fake.log")
        procs.append(fake)
        try:
            stacks = []
            for i, tree in enumerate(trees):
                proc, client = gateway(tree, Path(tmp) / f"g{i}", line.split()[3])
                procs.append(proc)
                turns(client, 10, args.stream)  # warm-up: imports, agent built, caches
                stacks.append((tree, proc, client))
            for _ in range(args.rounds):
                for tree, proc, client in stacks:
                    before = cpu_seconds(proc.pid)
                    turns(client, args.turns, args.stream)
                    per_turn[tree].append((cpu_seconds(proc.pid) - before) / args.turns)
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=15)
    first = statistics.median(per_turn[trees[0]])
    print(f"gateway CPU per turn ({'streamed' if args.stream else 'non-streamed'}; median of "
          f"{args.rounds} rounds x {args.turns} turns), ms")
    for tree in trees:
        median = statistics.median(per_turn[tree])
        print(f"{str(tree)[-40:]:40} {median * 1e3:7.2f}  (min {min(per_turn[tree]) * 1e3:.2f})"
              f"  ratio vs first {median / first:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
