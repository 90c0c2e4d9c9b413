"""Cost of the read-only git metadata (agent/sandbox/protect.py) on an ordinary session:
`python bench/git_protect.py [N]`.

One repository (a commit, a submodule); two sandboxed sessions side by side, one with
the protected mounts and one without (`protected_mounts` made to return nothing), and
`git status` / `git commit` through the terminal tool in each, interleaved, N times;
prints the median ms per call. Then a session's first command (where the mounts are
laid out), median of N/4 each."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import agent.sandbox.linux as linux
from agent.sandbox.backend import make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext, ToolState

COMMANDS = {"git status": "git status --short",
            "git commit": "echo x >> a.txt && git add a.txt && "
                          "git -c user.name=u -c user.email=u@x commit -qm x"}


def _repo(base: Path) -> Path:
    ws, lib = base / "ws", base / "lib"
    for repo in (lib, ws):
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "a.txt").write_text("a\n")
        subprocess.run(["git", "-C", str(repo), "add", "a.txt"], check=True)
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=u", "-c", "user.email=u@x",
                        "commit", "-qm", "a"], check=True)
    subprocess.run(["git", "-C", str(ws), "-c", "protocol.file.allow=always", "submodule", "add",
                    "-q", str(lib), "lib"], check=True, capture_output=True)
    return ws


def _ms(ctx: ToolContext, command: str) -> float:
    start = time.perf_counter()
    out = terminal.terminal({"command": command}, ctx)
    assert "[exit code 0]" in out, out
    return (time.perf_counter() - start) * 1000


def _session(base: Path, ws: Path, protect: bool) -> ToolContext:
    real = getattr(linux, "protected_mounts", None)  # None: a tree without them (main before)
    if real is not None and not protect:
        linux.protected_mounts = lambda policy: []  # type: ignore[assignment]
    try:
        box = make_sandbox(SandboxSettings(network="off"), base / "hh", ws)
        ctx = ToolContext(session_id="b", home=base / "hh", cwd=ws, yolo=True,
                          state=ToolState(sandbox=box))
        _ms(ctx, "true")  # the namespace holder starts here, with or without the mounts
    finally:
        if real is not None:
            linux.protected_mounts = real
    return ctx


def main(n: int = 20) -> None:
    base = Path(tempfile.mkdtemp(prefix="hermes-bench-"))
    os.environ["GIT_CONFIG_NOSYSTEM"] = "1"
    ws = _repo(base)
    ctxs = {True: _session(base, ws, True), False: _session(base, ws, False)}
    times: dict[tuple[str, bool], list[float]] = {}
    for turn in range(n):
        for name, command in COMMANDS.items():
            for protect in (turn % 2 == 0, turn % 2 == 1):  # each goes first half the time
                ctx = ctxs[protect]
                times.setdefault((name, protect), []).append(_ms(ctx, command))
    for name in COMMANDS:
        off, on = (statistics.median(times[(name, p)]) for p in (False, True))
        print(f"{name} through the terminal tool, median of {n}: without {off:.1f} ms, "
              f"read-only git metadata {on:.1f} ms (added {on - off:+.1f} ms)")
    for ctx in ctxs.values():
        terminal.release_processes(ctx.state)
    starts: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(max(3, n // 4)):
        for protect in (False, True):
            start = time.perf_counter()
            ctx = _session(base, ws, protect)
            starts[protect].append((time.perf_counter() - start) * 1000)
            terminal.release_processes(ctx.state)
    print(f"a session's first command, median of {len(starts[True])}: without "
          f"{statistics.median(starts[False]):.1f} ms, with the mounts "
          f"{statistics.median(starts[True]):.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
