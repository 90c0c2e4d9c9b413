"""Per-turn overhead of the agent runtime, measured side by side with the bare SDK.

Both paths send a request of the same shape to the same local fake provider (127.0.0.1):
- baseline: `anthropic` SDK streaming call with the agent's own wire body, replayed;
- hermes: `AIAgent.run_turn` (request shaping, breakpoints, fingerprint, diagnosis,
  SQLite commits of every message and usage row, events).
Prints medians and the ratio; not a test, no timing asserts anywhere.

    .venv/bin/python bench/turn_overhead.py [--turns 40]
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

from agent.agent import AIAgent  # noqa: E402
from agent.config import AgentConfig  # noqa: E402
from agent.providers.base import ProviderSettings  # noqa: E402
from memory.store import SessionStore  # noqa: E402
from tests.fakes import FakeProvider  # noqa: E402

MODEL = "claude-sonnet-5"


def _agent(fake: FakeProvider, home: Path) -> AIAgent:
    settings = ProviderSettings("anthropic", MODEL, "bench-key", fake.anthropic_base_url)
    config = AgentConfig(provider=settings, home=home, cwd=home)
    return AIAgent(config, SessionStore(home / "state.db"), clock=fake.clock.now)


def measure(turns: int) -> dict[str, float]:
    """Median wall time per turn for hermes and for the bare SDK, in milliseconds."""
    import anthropic

    with tempfile.TemporaryDirectory() as tmp, FakeProvider() as fake:
        home = Path(tmp)
        agent = _agent(fake, home)
        for _ in agent.run_turn("warm up"):
            pass
        hermes_times, hermes_cpu = [], []
        for i in range(turns):
            started, cpu = time.perf_counter(), time.process_time()
            for _ in agent.run_turn(f"turn {i}: a short question"):
                pass
            hermes_times.append(time.perf_counter() - started)
            hermes_cpu.append(time.process_time() - cpu)
        bodies = [r.body for r in fake.requests[1:]]
        client = anthropic.Anthropic(api_key="bench-key", base_url=fake.anthropic_base_url, max_retries=0)
        sdk_times, sdk_cpu = [], []
        for body in bodies:
            kwargs = {k: v for k, v in body.items() if k != "stream"}
            started, cpu = time.perf_counter(), time.process_time()
            with client.messages.stream(**kwargs) as stream:
                for _ in stream:
                    pass
            sdk_times.append(time.perf_counter() - started)
            sdk_cpu.append(time.process_time() - cpu)
        agent.close()
        client.close()
    hermes_ms = statistics.median(hermes_times) * 1000
    sdk_ms = statistics.median(sdk_times) * 1000
    hermes_cpu_ms = statistics.median(hermes_cpu) * 1000
    sdk_cpu_ms = statistics.median(sdk_cpu) * 1000
    return {"hermes_ms": hermes_ms, "sdk_ms": sdk_ms, "overhead_ms": hermes_ms - sdk_ms,
            "ratio": hermes_ms / sdk_ms, "turns": turns, "hermes_cpu_ms": hermes_cpu_ms,
            "sdk_cpu_ms": sdk_cpu_ms, "cpu_ratio": hermes_cpu_ms / sdk_cpu_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    args = parser.parse_args()
    result = measure(args.turns)
    print(f"per-turn time, median of {result['turns']} turns (history grows each turn)")
    print(f"  bare SDK stream to the fake  {result['sdk_ms']:8.2f} ms   1.00x")
    print(f"  hermes run_turn              {result['hermes_ms']:8.2f} ms   {result['ratio']:.2f}x")
    print(f"  overhead of the runtime      {result['overhead_ms']:8.2f} ms per turn")
    # CPU time of the whole process (the fake server in it does the same work for both
    # paths): steadier than wall time on a loaded machine
    print(f"process CPU per turn, median: SDK {result['sdk_cpu_ms']:.2f} ms, hermes "
          f"{result['hermes_cpu_ms']:.2f} ms ({result['cpu_ratio']:.2f}x)")


if __name__ == "__main__":
    main()
