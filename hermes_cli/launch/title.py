"""A forked run's name in `ps` and `top`: the `hermes ...` the user typed, not the
server's `python3 -P -m hermes_cli.launch.server SOCKET`.

The name is /proc/self/comm (what `ps -e` and `top` show, 15 bytes) and the argv area
the kernel shows as /proc/PID/cmdline (what `ps aux` shows): written in place through
/proc/self/mem, the argv area's bounds read from /proc/self/stat. Standard library only
(no `setproctitle` dependency): the area is the server's own argv (~150 bytes: the
interpreter, `-P -m hermes_cli.launch.server` and the socket's path), a longer title is
cut there; the environment's area after it is left alone (C code may still point at it).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

ARG_START = 48 - 3  # /proc/PID/stat fields 48 and 49, counted after the ")" of field 2


def set_title(words: list[str]) -> None:
    """Show `words` as this process' argv (cut to the argv area) and words[0] as its name."""
    with contextlib.suppress(OSError):
        Path("/proc/self/comm").write_bytes(words[0].encode()[:15])
    try:
        fields = Path("/proc/self/stat").read_bytes().rsplit(b")", 1)[1].split()
        start, end = int(fields[ARG_START]), int(fields[ARG_START + 1])
    except (OSError, IndexError, ValueError):
        return
    size = end - start
    if size <= 1:
        return
    data = b"\0".join(map(os.fsencode, words))[:size - 1].ljust(size, b"\0")
    with contextlib.suppress(OSError), open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(start)
        mem.write(data)
