"""The start-up cases beyond the first prompt, each timed from the spawn (bench/startup.py
prints them): `/help` typed ahead, the first token of a message typed ahead against the
local fake provider, quitting right after start, `hermes -q` wall time, `hermes acp`
answering `initialize`; and a peer agent's first prompt (another installed agent's
command and the text its prompt ends with), for the side-by-side line."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pexpect

from hermes_cli.repl.main import PROMPT_MARKER
from tests.fakes.script import Reply
from tests.fakes.server import FakeProvider
from tests.helpers import HERMES

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "PONGTOKEN"  # the fake's answer: its first characters are the first token shown


def _spawn(argv: list[str], env: dict[str, str]) -> pexpect.spawn:
    return pexpect.spawn(argv[0], argv[1:], env=env, cwd=str(ROOT), dimensions=(40, 120),
                         encoding="utf-8", timeout=30)


def _close(child: pexpect.spawn) -> None:
    child.terminate(force=True)
    child.close()


def help_typed_ahead(env: dict[str, str]) -> float:
    """`/help` typed the moment the process starts: seconds until its last line shows."""
    start = time.perf_counter()
    child = _spawn(HERMES, env)
    child.send("/help\r")
    child.expect_exact("Ctrl-D quits")
    elapsed = time.perf_counter() - start
    _close(child)
    return elapsed


def first_token_typed_ahead(env: dict[str, str], fake: FakeProvider) -> float:
    """A message typed at once: seconds until the first token of the answer shows."""
    fake.script(Reply(text=f"{TOKEN} and the rest of the answer."))
    start = time.perf_counter()
    child = _spawn(HERMES, env)
    child.send("say something\r")
    child.expect_exact(TOKEN)
    elapsed = time.perf_counter() - start
    _close(child)
    return elapsed


def quit_right_after_start(env: dict[str, str]) -> float:
    """Ctrl-D as soon as the prompt is drawn: seconds from that key to the exit (the agent
    is still being built in the background then). A Ctrl-D typed before the prompt is the
    terminal's end-of-file in cooked mode, never a key the REPL reads, so it waits for
    the prompt like a person does."""
    child = _spawn(HERMES, env)
    child.expect_exact(PROMPT_MARKER)
    start = time.perf_counter()
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    elapsed = time.perf_counter() - start
    child.close()
    return elapsed


def one_shot(env: dict[str, str], fake: FakeProvider) -> float:
    """`hermes -q` against the fake: wall time to exit."""
    fake.script(Reply(text="done"))
    start = time.perf_counter()
    subprocess.run([*HERMES, "-q", "hi"], env=env, cwd=ROOT, check=True, capture_output=True,
                   timeout=60)
    return time.perf_counter() - start


def acp_initialize(env: dict[str, str]) -> float:
    """`hermes acp`: seconds until it answers `initialize` on stdout."""
    start = time.perf_counter()
    proc = subprocess.Popen([*HERMES, "acp"], env=env, cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"protocolVersion": 1}}) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.kill()
    proc.wait(10)
    if '"result"' not in line:
        raise RuntimeError(f"hermes acp answered {line!r}")
    return elapsed


def peer_first_prompt(command: str, marker: str, env: dict[str, str]) -> float:
    """Another agent's REPL: seconds until `marker` (its prompt) is drawn."""
    start = time.perf_counter()
    child = _spawn([command], env)
    child.expect_exact(marker)
    elapsed = time.perf_counter() - start
    _close(child)
    return elapsed


def warm_env(env: dict[str, str], runtime: Path, fake: FakeProvider) -> dict[str, str]:
    """`env` with the warm start on (hermes_cli/launch/) in the private folder `runtime`,
    its server started by one cold `hermes -q` and listening."""
    warm = {k: v for k, v in env.items() if k != "HERMES_WARM"}
    warm["XDG_RUNTIME_DIR"] = str(runtime)
    one_shot(warm, fake)
    deadline = time.monotonic() + 60
    while not list(runtime.glob("hermes-warm-*/*.sock")):
        if time.monotonic() > deadline:
            raise RuntimeError("the warm start server did not come up in 60 s")
        time.sleep(0.05)  # a start-up wait with a deadline
    return warm


def stop_warm(warm: dict[str, str]) -> None:
    subprocess.run([*HERMES, "warm", "stop"], env=warm, cwd=ROOT, capture_output=True, timeout=60)
