"""The check-then-open race: a background process swaps a workspace directory with a
link to a secret place (renameat2 RENAME_EXCHANGE, as fast as it can) while read_file,
search_files and write_file loop on a path through it. Before file tools opened beneath
their root, a few hundred rounds read ~/.ssh/id_rsa and overwrote HERMES_HOME/SOUL.md;
now nothing leaks and nothing outside changes, with either resolver."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import safefs
from agent.tools.registry import ToolContext
from tests.tools.escape_world import VICTIMS, Battery, make_world

pytestmark = pytest.mark.wire  # a background process flips the directory

ROUNDS = 300
DEADLINE_S = 40.0
FLIPPER = r"""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
pairs = [(sys.argv[i].encode(), sys.argv[i + 1].encode()) for i in range(3, len(sys.argv), 2)]
stop, end = sys.argv[1], time.monotonic() + float(sys.argv[2])
while not os.path.exists(stop) and time.monotonic() < end:
    for a, b in pairs:
        libc.renameat2(-100, a, -100, b, 2)  # RENAME_EXCHANGE
"""


@pytest.mark.parametrize("resolver", ["openat2", "walk"])
@pytest.mark.parametrize("backend", ["python", "rg"])
def test_a_flipping_directory_never_leaks_or_lands_outside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hermes_home: Path, call,
        resolver: str, backend: str) -> None:
    if backend == "rg" and not shutil.which("rg"):
        pytest.skip("ripgrep is not installed")
    world = make_world(tmp_path, monkeypatch, hermes_home)
    monkeypatch.setenv("HERMES_SEARCH_BACKEND", backend)
    safefs.use(resolver)
    ws = world.ws
    (ws / "d").mkdir()
    (ws / "d" / "id_rsa").write_text("DECOY\n")
    (ws / "dl").symlink_to(world.home / ".ssh")
    (ws / "w").mkdir()
    (ws / "w" / "SOUL.md").write_text("decoy\n")
    (ws / "wl").symlink_to(world.hh)
    stop = tmp_path / "stop"
    flipper = subprocess.Popen([sys.executable, "-c", FLIPPER, str(stop), str(DEADLINE_S + 10),
                                str(ws / "d"), str(ws / "dl"), str(ws / "w"), str(ws / "wl")])
    ctx = ToolContext(session_id="s", home=world.hh, cwd=ws, yolo=True)
    battery = Battery(f"race ({resolver}, {backend}): read_file / search_files / write_file")
    end = time.monotonic() + DEADLINE_S
    try:
        for _ in range(ROUNDS):
            if time.monotonic() > end:
                break
            for tool, args in (("read_file", {"path": "d/id_rsa"}),
                               ("search_files", {"pattern": "LEAK", "path": "d"}),
                               ("write_file", {"path": "w/SOUL.md", "content": "PWNED\n"})):
                result = call(tool, ctx, **args)
                battery.attempted += 1
                battery.leaked += bool(world.leaked(result.content))
                battery.blocked += not result.ok
            for spec in world.destroyed():  # count it, put it back, go on
                battery.destroyed += 1
                world.target(spec).write_text(VICTIMS[spec])
    finally:
        stop.touch()
        flipper.wait(timeout=30)
        safefs.use(None)
    print("\n" + battery.line() + f" (rounds: {battery.attempted // 3})")
    assert battery.attempted >= 150  # long enough to have caught the old race
    assert (battery.leaked, battery.destroyed) == (0, 0)
