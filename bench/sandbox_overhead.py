"""Added time per terminal call from the sandbox: `python bench/sandbox_overhead.py [N]`.

Runs `true` through the terminal tool N times in one sandboxed session per network
choice and N times with the sandbox off (interleaved, same process), and prints the
median ms per call; then the same in a workspace of 2,000 files with and without a
process an earlier command left running (each later call judges what it may have
written: agent/tools/term_left.py); then the start of a session (its first command,
which starts the namespace holder, and its end), median of N/10."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from agent.sandbox.backend import make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext, ToolState


def _call(box, base: Path) -> float:
    ctx = ToolContext(session_id="b", home=base / "hh", cwd=base / "ws", yolo=True,
                      state=ToolState(sandbox=box))
    start = time.perf_counter()
    terminal.terminal({"command": "true"}, ctx)
    return (time.perf_counter() - start) * 1000


def main(n: int = 100) -> None:
    base = Path(tempfile.mkdtemp(prefix="hermes-bench-"))
    (base / "ws").mkdir()
    boxes = {"sandboxed, network on": make_sandbox(SandboxSettings(network="on"), base / "hh", base / "ws"),
             "sandboxed, network off": make_sandbox(SandboxSettings(network="off"), base / "hh", base / "ws"),
             "unsandboxed": make_sandbox(SandboxSettings(enabled=False), base / "hh", base / "ws")}
    assert boxes["sandboxed, network on"].active, boxes["sandboxed, network on"].reason
    times: dict[str, list[float]] = {k: [] for k in boxes}
    for _ in range(n):
        for name, box in boxes.items():
            times[name].append(_call(box, base))
    med = {k: statistics.median(v) for k, v in times.items()}
    plain = med["unsandboxed"]
    print(f"terminal call (`true`), median of {n}: unsandboxed {plain:.1f} ms")
    for name in boxes:
        if name != "unsandboxed":
            print(f"  {name}: {med[name]:.1f} ms, added {med[name] - plain:.1f} ms "
                  f"(ratio {med[name] / plain:.2f})")
    _left_running(base, n)
    starts = []
    for _ in range(max(3, n // 10)):
        box = make_sandbox(SandboxSettings(network="off"), base / "hh", base / "ws")
        start = time.perf_counter()
        _call(box, base)
        box.close()
        starts.append((time.perf_counter() - start) * 1000)
    print(f"a session's first command + its end (namespace holder start/stop), median of "
          f"{len(starts)}: {statistics.median(starts):.1f} ms")
    for box in boxes.values():
        box.close()


def _left_running(base: Path, n: int) -> None:
    ws = base / "big"
    for i in range(2000):
        folder = ws / f"pkg{i // 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i}.py").write_text(f"x = {i}\n")
    ctxs = {}
    for name in ("nothing left running", "a server left running"):
        box = make_sandbox(SandboxSettings(network="on"), base / "hh", ws)
        ctxs[name] = ToolContext(session_id="b", home=base / "hh", cwd=ws, yolo=True,
                                 state=ToolState(sandbox=box))
    terminal.terminal({"command": "sleep 600 >/dev/null 2>&1 &"}, ctxs["a server left running"])
    times: dict[str, list[float]] = {k: [] for k in ctxs}
    for _ in range(n):
        for name, ctx in ctxs.items():
            start = time.perf_counter()
            terminal.terminal({"command": "true"}, ctx)
            times[name].append((time.perf_counter() - start) * 1000)
    med = {k: statistics.median(v) for k, v in times.items()}
    calm = med["nothing left running"]
    print(f"sandboxed terminal call in 2,000 files, median of {n}: nothing left running "
          f"{calm:.1f} ms; a server left running {med['a server left running']:.1f} ms "
          f"(ratio {med['a server left running'] / calm:.2f})")
    for ctx in ctxs.values():
        terminal.release_processes(ctx.state)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
