"""Added time per terminal call from the sandbox: `python bench/sandbox_overhead.py [N]`.

Runs `true` through the terminal tool N times in one sandboxed session per network
choice and N times with the sandbox off (interleaved, same process), and prints the
median ms per call; then the start of a session (its first command, which starts the
namespace holder, and its end), median of N/10."""

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


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
