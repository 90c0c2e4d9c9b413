"""Real `hermes gateway` worker processes over one HERMES_HOME (and one database), for
the scale-out tests (tests/gateway/test_workers*.py, tests/chat/test_workers_telegram.py)
and bench/scaleout.py."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import yaml

from tests.helpers import GATEWAY_MODEL, HERMES, KEY_A, KEY_B, child_env, hermes_command

_LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:\d+/v1)")


def write_config(home: Path, provider_url: str, **gateway: Any) -> None:
    """config.yaml for workers answering through the fake provider (no access log)."""
    config = {"provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "provider-key",
              "base_url": provider_url, "toolsets": ["file"],
              "gateway": {"api_keys": [KEY_A, KEY_B], "access_log": "off", **gateway}}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


class Worker:
    """One `hermes gateway --port 0` process; `base_url` once it listens.

    `forked` (tests): the worker is forked from tests/prefork.py's server through its
    trampoline, so it starts with the provider SDKs imported (~2 s of CPU less per worker
    and per first turn); a SIGKILL to the trampoline reaches the worker's process group.
    `pid` is then the trampoline's: a test or bench that reads the worker's own /proc
    entry (its environment, its CPU) passes `forked=False` for a fresh interpreter."""

    def __init__(self, home: Path, *, database_url: str | None = None,
                 env: dict[str, str] | None = None, deadline: float = 30.0,
                 forked: bool = True) -> None:
        args = ["gateway", "--port", "0"]
        if database_url:  # from a file, as docs/SCALEOUT.md says: never on the command line
            url_file = home / "database-url"
            url_file.write_text(database_url + "\n", encoding="utf-8")
            url_file.chmod(0o600)
            args += ["--database-url-file", str(url_file)]
        self.log = home / f"worker-{time.monotonic_ns()}.log"
        environ = {**child_env(home), **(env or {})}
        command = hermes_command(args, environ) if forked else [*HERMES, *args]
        with self.log.open("w", encoding="utf-8") as err:
            self.proc = subprocess.Popen(command, env=environ, stdout=subprocess.PIPE,
                                         stderr=err, text=True)
        self.base_url = self._listening(deadline)
        self.root = self.base_url.removesuffix("/v1")

    def _listening(self, deadline: float) -> str:
        assert self.proc.stdout is not None
        end = time.monotonic() + deadline
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            while time.monotonic() < end:
                if not sel.select(timeout=max(0.0, end - time.monotonic())):
                    break
                line = self.proc.stdout.readline()
                if not line:  # exited
                    break
                found = _LISTENING.search(line)
                if found:
                    return found.group(1)
        self.stop()
        raise AssertionError(f"worker did not start: {self.log.read_text(encoding='utf-8')}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def kill(self) -> None:
        """SIGKILL: no shutdown, no lock released, no lease released."""
        self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self, timeout: float = 20.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        return self.proc.returncode


def start_workers(home: Path, count: int, **kwargs: Any) -> list[Worker]:
    """`count` workers started side by side (each start is ~0.5 s of CPU)."""
    workers: list[Worker] = []
    try:
        for _ in range(count):
            workers.append(Worker(home, **kwargs))
    except BaseException:
        for worker in workers:
            worker.stop()
        raise
    return workers


def stop_workers(workers: list[Worker]) -> None:
    for worker in workers:
        worker.stop()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
