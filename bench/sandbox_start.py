"""What a session's start costs with the home allowlist and the socket covers:
`python bench/sandbox_start.py [N]` (run it on main too for the "before").

A fake home under /var/tmp holds the workspace, ~/.gitconfig, ~/.config/git, a pip
cache and a dozen other dotfiles; HOME points there. Per network choice (`on`: the home
only; `off`: the home plus the empty /run and the host-socket covers) it times a new
session's first terminal command (`true`: the holder starts, the mounts are laid out)
plus its end, median of N; then one `read_file` call (the file tools' view), median of
10*N. Prints one line each."""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agent.sandbox.backend import make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.read_file import read_file
from agent.tools.registry import ToolContext, ToolState
from bench._timing import median_us

FILES = (".gitconfig", ".config/git/ignore", ".cache/pip/http/x", ".npmrc", ".pypirc",
         ".bash_history", ".config/gcloud/c.json", ".local/bin/tool", ".profile", ".bashrc",
         ".viminfo", ".lesshst", "documents/a.txt", "project/main.py")


def main(n: int = 20) -> None:
    base = Path(tempfile.mkdtemp(prefix="hermes-bench-", dir="/var/tmp"))
    try:
        home = base / "home"
        for name in FILES:
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_text("x\n")
        os.environ["HOME"] = str(home)
        ws = home / "project"
        for network in ("on", "off"):
            starts = []
            for _ in range(n):
                box = make_sandbox(SandboxSettings(network=network), base / "hh", ws)
                ctx = ToolContext(session_id="b", home=base / "hh", cwd=ws, yolo=True, state=ToolState(sandbox=box))
                start = time.perf_counter()
                terminal.terminal({"command": "true"}, ctx)
                box.close()
                starts.append((time.perf_counter() - start) * 1000)
            print(f"network {network}: a session's first command + its end, median of {n}: "
                  f"{statistics.median(starts):.1f} ms")
        box = make_sandbox(SandboxSettings(network="off"), base / "hh", ws)
        ctx = ToolContext(session_id="b", home=base / "hh", cwd=ws, yolo=True, state=ToolState(sandbox=box))
        took = median_us(lambda: read_file({"path": "main.py"}, ctx), 10 * n)
        print(f"read_file of a workspace file, median of {10 * n}: {took:.0f} us")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
