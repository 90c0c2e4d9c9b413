"""First streamed text on screen: from the provider's first text byte to the pty.

The real `hermes` REPL runs in a pty against the fake provider (in this process), with a
byte-forwarding proxy in between that timestamps the moment the SSE event carrying the
turn's marker leaves for the REPL; a reader thread timestamps the moment the marker shows
on the pty. Each tree given (default: this one) is measured in the same run, turns
alternating between them:

    .venv/bin/python bench/first_token.py [--turns 30] [--tree /tmp/base --tree .]

The reply streams in 3 pieces `--gap` seconds apart (default 0.03, inside the renderer's
0.1 s text interval), so the last piece also shows what throttling plus the event hand-off
add. Not a test; no timing asserts anywhere.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pexpect  # noqa: E402

from tests.fakes import FakeProvider, Reply  # noqa: E402
from tests.helpers import HERMES, Repl, anthropic_env, plain  # noqa: E402


class Proxy:
    """127.0.0.1 TCP forwarder; records when each watched marker first goes downstream."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream = upstream_port
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.watch: list[bytes] = []
        self.seen: dict[bytes, float] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            client, _ = self.server.accept()
            upstream = socket.create_connection(("127.0.0.1", self.upstream))
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, down: bool) -> None:
        tail = b""
        try:
            while data := src.recv(65536):
                if down:
                    now = time.perf_counter()
                    window = tail + data
                    with self.lock:
                        for marker in self.watch:
                            if marker not in self.seen and marker in window:
                                self.seen[marker] = now
                    tail = window[-64:]
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


class Screen:
    """Reads the pty all the time; records when each watched marker first shows."""

    def __init__(self, repl: Repl) -> None:
        self.repl = repl
        self.watch: list[str] = []
        self.seen: dict[str, float] = {}
        self.lock = threading.Lock()

    def wait(self, marker: str, timeout: float = 30) -> float:
        deadline = time.monotonic() + timeout
        while marker not in self.seen:
            if time.monotonic() > deadline:
                raise TimeoutError(marker)
            try:
                self.repl._read(0.002)
            except pexpect.TIMEOUT:
                continue
            now = time.perf_counter()
            text = plain(self.repl._raw[-8192:])
            for watched in self.watch:
                if watched not in self.seen and watched in text:
                    self.seen[watched] = now
        return self.seen[marker]


def one_tree(tree: Path, tmp: Path, fake: FakeProvider, proxy: Proxy):
    home = tmp / "home"
    work = tmp / "work"
    home.mkdir(parents=True)
    work.mkdir()
    env = anthropic_env(home, fake)
    env["ANTHROPIC_BASE_URL"] = f"http://127.0.0.1:{proxy.port}"
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(tree)])
    child = pexpect.spawn(HERMES[0], [*HERMES[1:]], cwd=str(work), env=env,
                          dimensions=(40, 120), encoding="utf-8", timeout=30)
    repl = Repl(child)
    repl.prompt(timeout=60)
    return repl, Screen(repl)


def turn(label: str, n: int, repl: Repl, screen: Screen, fake: FakeProvider, proxy: Proxy,
         gap: float) -> tuple[float, float]:
    first, last = f"QF{label}{n}QF", f"QL{label}{n}QL"
    text = f"{first} " + "lorem ipsum dolor " * 2 + f"sit {last}"
    fake.script(Reply(text=text, chunks=3, delay=gap))
    with proxy.lock:
        proxy.watch = [first.encode(), last.encode()]
    screen.watch = [first, last]
    repl.send(f"say it {label}{n}")
    on_first = screen.wait(first)
    on_last = screen.wait(last)
    repl.prompt()
    return on_first - proxy.seen[first.encode()], on_last - proxy.seen[last.encode()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--gap", type=float, default=0.03)
    parser.add_argument("--tree", action="append", type=Path)
    args = parser.parse_args(argv)
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    results: dict[str, tuple[list[float], list[float]]] = {}
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as tmp:
        proxy = Proxy(fake.port)
        running = [(f"t{i}", tree, *one_tree(tree, Path(tmp) / f"t{i}", fake, proxy))
                   for i, tree in enumerate(trees)]
        for label, tree, repl, screen in running:
            turn(label, 0, repl, screen, fake, proxy, args.gap)  # warm-up
            results[str(tree)] = ([], [])
        for n in range(1, args.turns + 1):
            for label, tree, repl, screen in running:
                a, b = turn(label, n, repl, screen, fake, proxy, args.gap)
                results[str(tree)][0].append(a)
                results[str(tree)][1].append(b)
        for _, _, repl, _ in running:
            repl.child.terminate(force=True)
    print(f"first text on screen after the provider's byte ({args.turns} turns, pieces "
          f"{args.gap * 1000:.0f} ms apart), ms")
    print(f"{'tree':40} {'first p50':>9} {'first p90':>9} {'first max':>9} {'last p50':>9} {'last max':>9}")
    for tree, (first, last) in results.items():
        q = statistics.quantiles(first, n=10)
        print(f"{tree[-40:]:40} {statistics.median(first) * 1e3:9.1f} {q[8] * 1e3:9.1f} "
              f"{max(first) * 1e3:9.1f} {statistics.median(last) * 1e3:9.1f} {max(last) * 1e3:9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
