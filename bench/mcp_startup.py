"""MCP start-up benchmark: the REPL's first prompt and first answered turn with 0 and
with 3 stdio MCP servers configured (tests/mcp/server.py, the SDK's own server), and the
tokens the MCP tools add to every request.

The servers start in the background after the prompt is drawn, so the first prompt must
stay within 10% of the no-server figure; the first answered turn waits for them (the
first request freezes the tool list). Median of N interleaved runs, after a warm-up.

    .venv/bin/python bench/mcp_startup.py [--runs 5] [--servers 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pexpect  # noqa: E402
import yaml  # noqa: E402

from agent.messages import canonical_json  # noqa: E402
from agent.tokens import estimate_tokens  # noqa: E402
from hermes_cli.repl.main import PROMPT_MARKER  # noqa: E402
from tests.fakes.server import FakeProvider  # noqa: E402
from tests.helpers import HERMES, anthropic_env  # noqa: E402

SERVER = str(ROOT / "tests" / "mcp" / "server.py")


def write_config(home: Path, servers: int) -> None:
    raw = {"mcp_servers": {f"s{i}": {"command": sys.executable, "args": [SERVER, "stdio"],
                                     "start_timeout": 60} for i in range(servers)}}
    (home / "config.yaml").write_text(yaml.safe_dump(raw) if servers else "")


def one_run(env: dict[str, str], answer: bool) -> tuple[float, float]:
    """(seconds to the first prompt, seconds to the first answered turn or 0.0)."""
    start = time.perf_counter()
    child = pexpect.spawn(HERMES[0], HERMES[1:], env=env, cwd=str(ROOT), dimensions=(40, 160),
                          encoding="utf-8", timeout=90)
    child.expect_exact(PROMPT_MARKER)
    prompt = time.perf_counter() - start
    answered = 0.0
    if answer:
        child.send("hello\r")
        child.expect_exact("ok")
        child.expect_exact(PROMPT_MARKER)
        answered = time.perf_counter() - start
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    return prompt, answered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--servers", type=int, default=3)
    args = parser.parse_args(argv)
    samples: dict[int, list[tuple[float, float]]] = {0: [], args.servers: []}
    tools_tokens: dict[int, tuple[int, int, int]] = {}
    prompts: dict[int, list[float]] = {0: [], args.servers: []}
    with FakeProvider(min_cache_tokens=64) as fake, tempfile.TemporaryDirectory() as tmp:
        homes = {}
        for count in samples:
            home = Path(tmp) / f"home{count}"
            home.mkdir()
            write_config(home, count)
            homes[count] = {**anthropic_env(home, fake), "PROMPT_TOOLKIT_NO_CPR": "1"}
        for count in samples:
            one_run(homes[count], True)  # warm-up
        for _ in range(args.runs):  # the first prompt alone: nothing else runs meanwhile
            for count in samples:
                prompts[count].append(one_run(homes[count], False)[0])
        for _ in range(args.runs):
            for count in samples:
                samples[count].append(one_run(homes[count], True))
                tools = fake.requests[-1].body.get("tools") or []
                mcp = [t for t in tools if t["name"].startswith("mcp__")]
                tools_tokens[count] = (len(mcp), estimate_tokens(canonical_json(mcp)),
                                       estimate_tokens(canonical_json(tools)))

    print(f"MCP start-up, median of {args.runs} interleaved runs (after one warm-up each)")
    print(f"{'servers':>8} {'first prompt ms':>16} {'(min)':>8} {'first answer ms':>16}")
    medians = {}
    for count, runs in samples.items():
        prompt = statistics.median(prompts[count])
        answer = statistics.median(r[1] for r in runs)
        medians[count] = prompt
        print(f"{count:>8} {prompt * 1000:>16.1f} {min(prompts[count]) * 1000:>8.1f} "
              f"{answer * 1000:>16.1f}")
    ratio = medians[args.servers] / medians[0]
    verdict = "ok" if ratio <= 1.10 else "SLOW"
    print(f"first prompt with {args.servers} servers / none: {ratio:.3f} (within 10%: {verdict})")
    for count, (n, mcp_tokens, all_tokens) in sorted(tools_tokens.items()):
        print(f"{count} servers: {n} MCP tools, ~{mcp_tokens:,} tokens of ~{all_tokens:,} tool "
              "tokens in every request")
    return 0


if __name__ == "__main__":
    sys.exit(main())
