"""Added time per terminal call from the sandbox: `python bench/sandbox_overhead.py [N]`.

Runs `true` through the terminal tool N times sandboxed and N times with the sandbox
off (interleaved, same process), and prints ms per call and the ratio."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from agent.sandbox.backend import make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext


def main(n: int = 100) -> None:
    base = Path(tempfile.mkdtemp(prefix="hermes-bench-"))
    (base / "ws").mkdir()
    boxes = {"sandboxed": make_sandbox(SandboxSettings(), base / "hh", base / "ws"),
             "unsandboxed": make_sandbox(SandboxSettings(enabled=False), base / "hh", base / "ws")}
    assert boxes["sandboxed"].active, boxes["sandboxed"].reason
    times: dict[str, list[float]] = {k: [] for k in boxes}
    for _ in range(n):
        for name, box in boxes.items():
            ctx = ToolContext(session_id="b", home=base / "hh", cwd=base / "ws", yolo=True,
                              state={"sandbox": box})
            start = time.perf_counter()
            terminal.terminal({"command": "true"}, ctx)
            times[name].append((time.perf_counter() - start) * 1000)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"terminal call, median of {n}: sandboxed {med['sandboxed']:.1f} ms, unsandboxed "
          f"{med['unsandboxed']:.1f} ms, added {med['sandboxed'] - med['unsandboxed']:.1f} ms "
          f"(ratio {med['sandboxed'] / med['unsandboxed']:.2f})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
