"""`hermes acp`: time to the initialize answer, and per-prompt overhead vs the REPL's.

Against the local fake provider (127.0.0.1), in one run:
- start: spawn `python -m hermes_cli acp` and send `initialize` at once; the time until
  its answer (median of --starts runs), beside `hermes --version` (interpreter + CLI);
- per prompt: one ACP session (the SDK's client side over real pipes) sends --turns
  prompts, each answered "ok" by the fake; request -> response wall time. The REPL in a
  pty gets the same replies: Enter -> the next prompt drawn. Both include the provider
  call; the difference is what each front end adds.
Prints medians; not a test, no timing asserts.

    .venv/bin/python bench/acp_overhead.py [--turns 20] [--starts 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acp import schema as s  # noqa: E402
from acp import spawn_agent_process  # noqa: E402

from tests.fakes import FakeProvider  # noqa: E402
from tests.fakes.script import Reply  # noqa: E402
from tests.helpers import HERMES, Repl, anthropic_env  # noqa: E402


class Quiet:
    async def session_update(self, session_id, update, **_):
        return None


async def _acp(env: dict, cwd: Path, turns: int, starts: int) -> tuple[list[float], list[float]]:
    inits, prompts = [], []
    for i in range(starts):
        began = time.monotonic()
        async with spawn_agent_process(Quiet(), *HERMES, "acp", env=env, cwd=str(cwd),
                                       transport_kwargs={"stderr": subprocess.DEVNULL}) as (conn, _p):
            await conn.initialize(protocol_version=1)
            inits.append(time.monotonic() - began)
            if i:
                continue
            new = await conn.new_session(cwd=str(cwd), mcp_servers=[])
            for _ in range(turns + 2):
                began = time.monotonic()
                await conn.prompt(session_id=new.session_id,
                                  prompt=[s.TextContentBlock(type="text", text="say ok")])
                prompts.append(time.monotonic() - began)
    return inits, prompts[2:]  # the first two warm the SDK and the cache


def _repl(env: dict, cwd: Path, turns: int) -> list[float]:
    import pexpect

    child = pexpect.spawn(HERMES[0], HERMES[1:], cwd=str(cwd), env=env, dimensions=(40, 120),
                          encoding="utf-8", timeout=60)
    repl = Repl(child)
    repl.prompt(60)
    took = []
    for _ in range(turns + 2):
        began = time.monotonic()
        repl.send("say ok")
        repl.prompt(60)
        took.append(time.monotonic() - began)
    child.terminate(force=True)
    return took[2:]


def _version(env: dict) -> float:
    began = time.monotonic()
    subprocess.run([*HERMES, "--version"], env=env, capture_output=True, check=True)
    return time.monotonic() - began


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeProvider(min_cache_tokens=64) as fake:
        home, cwd = Path(tmp) / "home", Path(tmp) / "proj"
        home.mkdir()
        cwd.mkdir()
        env = anthropic_env(home, fake)
        fake.script(*[Reply(text="ok") for _ in range(2 * (args.turns + 2))])
        versions = [_version(env) for _ in range(args.starts)]
        inits, acp_turns = asyncio.run(_acp(env, cwd, args.turns, args.starts))
        repl_turns = _repl(env, cwd, args.turns)
    med = statistics.median
    print(f"hermes --version:            {med(versions) * 1000:7.0f} ms (median of {args.starts})")
    print(f"hermes acp -> initialize:    {med(inits) * 1000:7.0f} ms (median of {args.starts})")
    print(f"ACP prompt -> response:      {med(acp_turns) * 1000:7.1f} ms (median of {args.turns})")
    print(f"REPL Enter -> next prompt:   {med(repl_turns) * 1000:7.1f} ms (median of {args.turns})")
    print(f"ACP - REPL per prompt:       {(med(acp_turns) - med(repl_turns)) * 1000:+7.1f} ms")


if __name__ == "__main__":
    main()
