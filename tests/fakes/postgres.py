"""A real PostgreSQL server for the tests: one per test session (per xdist worker),
a fresh database per test.

The server binaries come from PATH or /usr/lib/postgresql/*/bin. PostgreSQL refuses to
run as root, so under root (CI) initdb and pg_ctl run as the `postgres` system user
through `runuser`, in a temp directory it owns. The server listens on 127.0.0.1 at a
free port, with fsync off (test data need not survive a power cut) and trust auth.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

START_TIMEOUT_S = 60


class PostgresMissing(RuntimeError):
    """The server binaries (initdb, pg_ctl) are not installed."""


def find_bin_dir() -> Path | None:
    """The directory holding initdb and pg_ctl, or None."""
    found = shutil.which("pg_ctl")
    if found and shutil.which("initdb"):
        return Path(found).parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "pg_ctl").exists() and (Path(candidate) / "initdb").exists():
            return Path(candidate)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    """initdb + pg_ctl start in a temp dir; `new_database()` -> a fresh database URL."""

    def __init__(self) -> None:
        bin_dir = find_bin_dir()
        if bin_dir is None:
            raise PostgresMissing("PostgreSQL server binaries not found: no pg_ctl/initdb on "
                                  "PATH or in /usr/lib/postgresql/*/bin")
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="hermes-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self._names = itertools.count(1)
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self.admin_url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self._as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=START_TIMEOUT_S,
                              check=False)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(args[:2])} failed: {done.stderr.strip()}\n{tail}")

    def start(self, *, durable: bool = False) -> PostgresServer:
        """initdb and start; `durable`: fsync and synchronous commits on (the server
        defaults, for benchmarks), else off (tests)."""
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust",
                  "-E", "UTF8", "--no-sync", "--locale=C")
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   "-c max_connections=200")
        if not durable:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-o", options, "-w", "-t", str(START_TIMEOUT_S), "start")
        return self

    def new_database(self) -> str:
        """CREATE DATABASE with a fresh name; its URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
