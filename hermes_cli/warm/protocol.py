"""The warm server's small talk: an operation ("status" or "stop") and its answer, the
control lines a run's client reads ("pid N", "exit STATUS") and the limits a run's
request carries."""

from __future__ import annotations

import json
import resource
import socket
import struct
from pathlib import Path

RUN = b"R"  # a run's first byte; an operation starts with its length (a 0 byte)


def ask(path: Path, op: str, timeout: float = 5.0) -> dict | None:
    """A server's answer to an operation ("status" or "stop"); None when none listens."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(timeout)
    try:
        conn.connect(str(path))
        body = json.dumps({"op": op}).encode()
        conn.sendall(struct.pack("!I", len(body)) + body)
        answer = b""
        while not answer.endswith(b"\n"):
            piece = conn.recv(4096)
            if not piece:
                break
            answer += piece
        return json.loads(answer) if answer else None
    except (OSError, ValueError):
        return None
    finally:
        conn.close()


def field(control: bytes, word: bytes) -> int | None:
    for line in control.split(b"\n")[:-1]:
        key, _, number = line.partition(b" ")
        if key == word:
            return int(number)
    return None


#: the limits a run's request carries (`ulimit` in the client's shell applies to the run)
LIMITS = ("RLIMIT_AS", "RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE",
          "RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_STACK")


def limits() -> dict[str, list[int]]:
    """This process' limits, as a run's request carries them."""
    return {name: list(resource.getrlimit(getattr(resource, name))) for name in LIMITS
            if hasattr(resource, name)}
