"""Start-up benchmark: time until the REPL accepts input, and `hermes --version`.

Measured side by side in one run against `python -c pass` (the interpreter's own
start-up), median of N runs each, printed with ratios. The REPL is spawned in a real
pty (pexpect) with a fresh HERMES_HOME and the provider env pointing at the local fake
server (nothing is sent to it before the first message; no network).

    .venv/bin/python bench/startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pexpect  # noqa: E402

from hermes_cli.repl.main import PROMPT_MARKER  # noqa: E402
from tests.fakes.server import FakeProvider  # noqa: E402
from tests.helpers import HERMES, anthropic_env  # noqa: E402

TARGET_SECONDS = 0.5
SDKS = ("anthropic", "openai", "genai_prices")  # the SDKs and the price data library


def time_process(argv: list[str], env: dict[str, str]) -> float:
    """Wall time of one run of `argv` to its exit."""
    start = time.perf_counter()
    subprocess.run(argv, env=env, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def time_first_prompt(env: dict[str, str]) -> float:
    """Spawn the REPL in a pty; seconds until the prompt marker is drawn."""
    start = time.perf_counter()
    child = pexpect.spawn(HERMES[0], HERMES[1:], env=env, cwd=str(ROOT), dimensions=(40, 120),
                          encoding="utf-8", timeout=20)
    child.expect_exact(PROMPT_MARKER)
    elapsed = time.perf_counter() - start
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    return elapsed


def sdks_before_prompt(env: dict[str, str]) -> list[str]:
    """Provider SDKs (and genai-prices) imported before the first prompt (should be none)."""
    child = pexpect.spawn(HERMES[0], HERMES[1:], env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
                          cwd=str(ROOT), dimensions=(40, 200), encoding="utf-8", timeout=20)
    child.expect_exact(PROMPT_MARKER)
    before = child.before or ""
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    found = set()
    for line in before.splitlines():
        name = line.rsplit("|", 1)[-1].strip()
        if name.split(".")[0] in SDKS:
            found.add(name.split(".")[0])
    return sorted(found)


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with FakeProvider(min_cache_tokens=64) as fake, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        # A pty is no terminal emulator: it never answers cursor-position requests.
        env = {**anthropic_env(home, fake), "PROMPT_TOOLKIT_NO_CPR": "1"}
        rows: list[tuple[str, float]] = []
        for label, measure in (
            ("python -c pass", lambda: time_process([sys.executable, "-c", "pass"], env)),
            ("hermes --version", lambda: time_process([*HERMES, "--version"], env)),
            ("hermes (REPL) first prompt", lambda: time_first_prompt(env)),
        ):
            measure()  # warm-up: .pyc files, page cache
            rows.append((label, median([measure() for _ in range(args.runs)])))
        sdks = sdks_before_prompt(env)
        requests = len(fake.requests)
    baseline = rows[0][1]
    print(f"start-up, median of {args.runs} runs (after one warm-up run each)")
    print(f"{'':<28} {'ms':>8} {'x python':>9}")
    for label, seconds in rows:
        print(f"{label:<28} {seconds * 1000:>8.1f} {seconds / baseline:>8.1f}x")
    first_prompt = rows[-1][1]
    verdict = "ok" if first_prompt <= TARGET_SECONDS else "SLOW"
    print(f"first prompt within {TARGET_SECONDS:.1f}s target: {verdict}")
    print(f"provider SDKs imported before the first prompt: {', '.join(sdks) or 'none'}")
    print(f"requests sent to the provider before any message: {requests}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
