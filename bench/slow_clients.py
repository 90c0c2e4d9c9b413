"""Measure the gateway under many slow clients: not a test.

Starts `hermes gateway` in a subprocess (stderr to a file), holds as many connections
as this process's open-file limit allows, each sending its request headers a line at a
time (slowloris, reconnecting when cut), and meanwhile times `GET /health` from a
fresh connection once a second; then drops the slow clients and times it again.

    python -m bench.slow_clients --connections 20000 --seconds 40
Prints one JSON object: connections reached, /health latencies during and after,
stderr bytes the gateway wrote.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KEY = "bench-key-0123456789abcdef"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_gateway(home: Path, port: int, stderr_path: Path) -> subprocess.Popen:
    (home / "config.yaml").write_text(
        f"provider: anthropic\napi_key: k\nbase_url: http://127.0.0.1:9\n"
        f"gateway: {{api_keys: [{KEY}]}}\n")
    env = dict(os.environ, HERMES_HOME=str(home))
    proc = subprocess.Popen([sys.executable, "-m", "hermes_cli", "gateway", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=stderr_path.open("wb"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the gateway did not start")


async def _health(port: int, timeout: float = 10.0) -> float | None:
    started = time.perf_counter()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        writer.write(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        line = await asyncio.wait_for(reader.readline(), timeout)
        writer.close()
        if b" 200 " not in line:
            return None
    except (TimeoutError, OSError):
        return None
    return time.perf_counter() - started


async def _slow_client(port: int, stop: asyncio.Event, state: dict) -> None:
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            state["connect_errors"] += 1
            await asyncio.sleep(0.5)
            continue
        state["open"] += 1
        state["peak"] = max(state["peak"], state["open"])
        try:
            writer.write(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            while not stop.is_set():
                await asyncio.sleep(2.0)
                writer.write(b"X-Slow: 1\r\n")
                await writer.drain()
                if reader.at_eof():
                    break
        except OSError:
            pass
        finally:
            state["open"] -= 1
            state["cut"] += 1
            writer.close()
        await asyncio.sleep(1.0)  # then come back, as a flood does


async def _run(port: int, connections: int, seconds: float) -> dict:
    stop = asyncio.Event()
    state = {"open": 0, "peak": 0, "cut": 0, "connect_errors": 0}
    clients = []
    for _ in range(connections):
        clients.append(asyncio.create_task(_slow_client(port, stop, state)))
        if len(clients) % 500 == 0:
            await asyncio.sleep(0.05)
    # probed from another process: this one's loop is busy with the slow clients
    probe = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.slow_clients", "--probe", str(port), str(seconds),
        stdout=asyncio.subprocess.PIPE)
    out, _ = await probe.communicate()
    during = json.loads(out)
    peak = state["peak"]
    stop.set()
    for task in clients:
        task.cancel()
    await asyncio.gather(*clients, return_exceptions=True)
    dropped_at = time.perf_counter()
    first_ok = None
    while first_ok is None and time.perf_counter() - dropped_at < 30:
        if await _health(port, 2.0) is not None:
            first_ok = time.perf_counter() - dropped_at
    after = [await _health(port) for _ in range(10)]
    return {"peak_connections": peak, "cut_by_server": state["cut"],
            "connect_errors": state["connect_errors"], "during": during,
            "after": after, "first_ok_after_drop_s": first_ok}


def _summary(values: list[float | None]) -> dict:
    ok = [v for v in values if v is not None]
    return {"tries": len(values), "ok": len(ok),
            "median_ms": round(statistics.median(ok) * 1000, 1) if ok else None,
            "max_ms": round(max(ok) * 1000, 1) if ok else None}


def _probe(port: int, seconds: float) -> None:
    async def run() -> list[float | None]:
        found, end = [], time.monotonic() + seconds
        while time.monotonic() < end:
            found.append(await _health(port))
            await asyncio.sleep(1.0)
        return found

    print(json.dumps(asyncio.run(run())))


def main() -> None:
    if sys.argv[1:2] == ["--probe"]:
        _probe(int(sys.argv[2]), float(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=40.0)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    wanted = min(args.connections, hard - 64)
    with tempfile.TemporaryDirectory() as tmp:
        home, port = Path(tmp), _free_port()
        stderr_path = home / "gateway.stderr"
        proc = _start_gateway(home, port, stderr_path)
        try:
            result = asyncio.run(_run(port, wanted, args.seconds))
        finally:
            proc.terminate()
            proc.wait(30)
        stderr = stderr_path.read_bytes()
    print(json.dumps({
        "asked": args.connections, "fd_limit": hard, "attempted": wanted,
        "peak_connections": result["peak_connections"],
        "cut_by_server": result["cut_by_server"], "connect_errors": result["connect_errors"],
        "health_during": _summary(result["during"]), "health_after": _summary(result["after"]),
        "first_ok_after_drop_s": result["first_ok_after_drop_s"],
        "stderr_bytes": len(stderr), "stderr_head": stderr[:400].decode(errors="replace"),
    }, indent=2))


if __name__ == "__main__":
    main()
