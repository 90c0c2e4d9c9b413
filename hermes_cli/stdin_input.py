"""What was piped or redirected to a one-shot run's stdin (`cat calc.py | hermes -q ...`).

A redirected file is read at once. A pipe, socket or device gets STDIN_WAIT seconds to
send its first byte: a stdin that is not a terminal but never sends anything (cron, ssh
without a tty, a CI runner) must not hang a run that already has its prompt, and a real
producer (`cat`, `git diff`) starts well within that. Once data flows, it is read to its
end - but never more than one byte over the attachment limit (then refused, not read).
"""

from __future__ import annotations

import os
import select
import stat
from dataclasses import dataclass
from typing import IO, Any

from frontend.mentions import MAX_FILE_BYTES

STDIN_WAIT = 3.0  # seconds for a pipe to send its first byte


@dataclass(frozen=True)
class Piped:
    """`data` read from stdin (b"" for none); `silent`: a pipe sent nothing in time."""

    data: bytes = b""
    silent: bool = False


def read_piped(stream: IO[Any] | None, wait: float = STDIN_WAIT) -> Piped:
    """What `stream` (stdin) carries; nothing when it is a terminal or absent."""
    try:
        fd = stream.fileno() if stream is not None else -1
        if fd < 0 or os.isatty(fd):
            return Piped()
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
        if not regular and not select.select([fd], [], [], wait)[0]:
            return Piped(silent=True)
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, 65_536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return Piped(b"".join(chunks))
    except (OSError, ValueError):  # closed, or not a real file: nothing piped
        return Piped()
