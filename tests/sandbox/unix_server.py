"""A host-side unix socket server for the reach tests (tests/sandbox/test_unix_sockets.py,
tests/gateway/test_gateway_reach.py)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

REPLY = b"HOST-SOCKET-REPLY"


@contextlib.contextmanager
def serving(path: Path) -> Iterator[None]:
    """A host-side server on `path` that answers every connection with REPLY."""
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(REPLY)

    worker = threading.Thread(target=loop, daemon=True)
    worker.start()
    try:
        yield
    finally:
        stop.set()
        worker.join(5)
        server.close()
        path.unlink(missing_ok=True)
