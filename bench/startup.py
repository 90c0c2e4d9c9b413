"""Start-up benchmark: time until the REPL accepts input, and `hermes --version`.

Measured side by side in one run against `python -c pass` (the interpreter's own
start-up), median of N runs each, printed with ratios. The REPL is spawned in a real
pty (pexpect) with a fresh HERMES_HOME and the provider env pointing at the local fake
server (nothing is sent to it before the first message; no network).

    .venv/bin/python bench/startup.py [--runs 5] [--cases] [--peer /tmp/ha/bin/hermes]

`--cases` adds the typed-ahead cases (bench/_startup_cases.py): `/help` typed ahead, the first
token of a message typed ahead (local fake provider), quit at the first prompt, `hermes -q`
wall time and `hermes acp` answering `initialize`, each cold (HERMES_WARM=0: a fresh
interpreter imports the SDKs, as on the very first run) and warm (forked from the warm
start server, which a first cold run started: every later run; hermes_cli/launch/). `--peer CMD` times another agent's
REPL until its prompt (`--peer-prompt`, default hermes-agent 0.19's "❯ ") in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pexpect  # noqa: E402

from bench import _startup_cases as cases  # noqa: E402
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


def _extra(args: argparse.Namespace, env: dict[str, str], fake: FakeProvider,
           warm: dict[str, str]) -> list[tuple[str, Callable[[], float]]]:
    rows: list[tuple[str, Callable[[], float]]] = []
    if args.cases:
        rows.append(("REPL first prompt (warm)", lambda: time_first_prompt(warm)))
        for kind, setting in (("cold", env), ("warm", warm)):
            rows += [
                (f"/help typed ahead ({kind})", lambda e=setting: cases.help_typed_ahead(e)),
                (f"first token, typed ahead ({kind})",
                 lambda e=setting: cases.first_token_typed_ahead(e, fake)),
                (f"quit at first prompt ({kind})",
                 lambda e=setting: cases.quit_right_after_start(e)),
                (f"hermes -q wall ({kind})", lambda e=setting: cases.one_shot(e, fake)),
                (f"hermes acp initialize ({kind})", lambda e=setting: cases.acp_initialize(e))]
    if args.peer:  # its own home (our config.yaml is not its format), not our PYTHONPATH
        peer_home = Path(env["HERMES_HOME"]).parent / "peer"
        peer_env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "HOME": str(peer_home), "HERMES_HOME": str(peer_home / ".hermes"),
                    "ANTHROPIC_API_KEY": "test-key",
                    "ANTHROPIC_BASE_URL": env.get("ANTHROPIC_BASE_URL", ""),
                    "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"}
        rows.append((f"peer first prompt ({Path(args.peer).name})",
                     lambda: cases.peer_first_prompt(args.peer, args.peer_prompt, peer_env)))
    return rows


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cases", action="store_true", help="also the typed-ahead, quit, one-shot and ACP cases")
    parser.add_argument("--peer", help="another agent's command, timed to its first prompt")
    parser.add_argument("--peer-prompt", default="\u276f ", help="the text its prompt ends with")
    args = parser.parse_args(argv)
    with FakeProvider(min_cache_tokens=64) as fake, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        # A pty is no terminal emulator: it never answers cursor-position requests.
        env = {**anthropic_env(home, fake), "PROMPT_TOOLKIT_NO_CPR": "1"}  # warm start off
        runtime = Path(tmp) / "runtime"
        runtime.mkdir(mode=0o700)
        warm = cases.warm_env(env, runtime, fake) if args.cases else env
        setup_requests = len(fake.requests)  # the cold run that started the warm server
        rows: list[tuple[str, float]] = []
        for label, measure in (
            ("python -c pass", lambda: time_process([sys.executable, "-c", "pass"], env)),
            ("hermes --version", lambda: time_process([*HERMES, "--version"], env)),
            ("hermes (REPL) first prompt", lambda: time_first_prompt(env)),
            *_extra(args, env, fake, warm),
        ):
            measure()  # warm-up: .pyc files, page cache
            rows.append((label, median([measure() for _ in range(args.runs)])))
            if label == "hermes (REPL) first prompt":  # the --cases rows send messages
                requests = len(fake.requests) - setup_requests
        sdks = sdks_before_prompt(env)
        if args.cases:
            cases.stop_warm(warm)
    baseline = rows[0][1]
    print(f"start-up, median of {args.runs} runs (after one warm-up run each)")
    print(f"{'':<34} {'ms':>8} {'x python':>9}")
    for label, seconds in rows:
        print(f"{label:<34} {seconds * 1000:>8.1f} {seconds / baseline:>8.1f}x")
    first_prompt = dict(rows)["hermes (REPL) first prompt"]
    verdict = "ok" if first_prompt <= TARGET_SECONDS else "SLOW"
    print(f"first prompt within {TARGET_SECONDS:.1f}s target: {verdict}")
    print(f"provider SDKs imported before the first prompt: {', '.join(sdks) or 'none'}")
    print(f"requests sent to the provider before any message: {requests}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
