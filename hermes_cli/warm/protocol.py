"""The warm server's small talk: an operation ("status" or "stop") and its answer, and
the control lines a run's client reads ("pid N", "exit STATUS")."""

from __future__ import annotations

import json
import socket
import struct
from pathlib import Path


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
