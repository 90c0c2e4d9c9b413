"""How the terminal reads a command's output and its final directory: pipes, never paths.

The parent never opens a path the command could replace (a scratch file in a writable
directory can be swapped for a symlink to ~/.ssh/id_rsa). Output comes through a pipe
read while the command runs; once the command itself exits, what is already in the pipe
is taken and the read end goes to one discard thread, so background children that keep
stdout open neither hang the call nor block on a full pipe nor die of SIGPIPE. Memory is
bounded: the head and the tail are kept, the middle only counted.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
from collections import deque

MAX_OUTPUT = 50_000  # characters kept: the first 40% and the last 60%
KEEP_BYTES = MAX_OUTPUT * 8  # up to this many bytes the cut is made in characters
HEAD_N, TAIL_N = int(MAX_OUTPUT * 0.4), MAX_OUTPUT - int(MAX_OUTPUT * 0.4)


class Capture:
    """The bytes read so far: the first KEEP_BYTES, the last KEEP_BYTES and the total."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_len = 0
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = KEEP_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail.append(data)
            self.tail_len += len(data)
            while self.tail_len - len(self.tail[0]) >= KEEP_BYTES:
                self.tail_len -= len(self.tail.popleft())

    def text(self) -> str:
        """The output, cut in the middle to MAX_OUTPUT characters with a note of the cut."""
        if self.total <= KEEP_BYTES:
            text = bytes(self.head).decode("utf-8", errors="replace")
            if len(text) <= MAX_OUTPUT:
                return text.rstrip("\n")
            cut, head, tail = len(text) - HEAD_N - TAIL_N, text[:HEAD_N], text[-TAIL_N:]
            unit = "characters"
        else:  # huge: both ends in bytes; count the cut in bytes
            head = bytes(self.head[:HEAD_N]).decode("utf-8", errors="replace")
            tail = b"".join(self.tail)[-TAIL_N:].decode("utf-8", errors="replace")
            cut, unit = self.total - HEAD_N - TAIL_N, "bytes"
        return f"{head}\n[... {cut:,} {unit} of output cut ...]\n{tail}".rstrip("\n")


def read_ready(fd: int, into: Capture | bytearray, limit: int = 1 << 20) -> bool:
    """Read what `fd` (non-blocking) has now, up to `limit` bytes; True at end of file."""
    got = 0
    while got < limit:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return False
        except OSError:
            return True
        if not data:
            return True
        got += len(data)
        if isinstance(into, Capture):
            into.add(data)
        else:
            into += data[: max(0, 4096 - len(into))]
    return False


def wait_readable(fds: list[int], timeout: float) -> list[int]:
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return [fd for fd, _ in poller.poll(max(0, int(timeout * 1000)))]


class _Discard:
    """One thread that reads and drops what background children still write to the pipes
    of calls that are over; a pipe is closed at its end of file (its writers are gone)."""

    def __init__(self, thread: type[threading.Thread] = threading.Thread) -> None:
        self._lock = threading.Lock()
        self._fds: set[int] = set()
        self._wake_r, self._wake_w = -1, -1
        self._make = thread
        self._thread: threading.Thread | None = None

    def adopt(self, fd: int) -> None:
        """Drain `fd` from now on; when no thread can be started (the interpreter is
        shutting down: a Ctrl-C that ends hermes mid-command) it is closed instead - the
        call is over, its background writers get EPIPE."""
        with self._lock:
            if self._thread is None:
                self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
                thread = self._make(target=self._loop, name="terminal-discard", daemon=True)
                try:
                    thread.start()
                except RuntimeError:  # "can't start new thread"
                    for end in (self._wake_r, self._wake_w, fd):
                        os.close(end)
                    self._wake_r, self._wake_w = -1, -1
                    return
                self._thread = thread
            self._fds.add(fd)
        with contextlib.suppress(BlockingIOError):  # full: already awake
            os.write(self._wake_w, b"x")

    def _loop(self) -> None:
        sink = bytearray()
        while True:
            with self._lock:
                fds = [*self._fds, self._wake_r]
            for fd in wait_readable(fds, 60.0):
                if fd == self._wake_r:
                    read_ready(fd, bytearray())
                    continue
                sink.clear()
                if read_ready(fd, sink):
                    with self._lock:
                        self._fds.discard(fd)
                    os.close(fd)


DISCARD = _Discard()


def finish(out_r: int, capture: Capture, cwd_r: int) -> str:
    """After the command exited: take what is in the pipes now, hand the output pipe to
    the discard thread if a background child still holds it, return the reported cwd."""
    if read_ready(out_r, capture, limit=64 << 20):
        os.close(out_r)
    else:
        DISCARD.adopt(out_r)
    report = bytearray()
    read_ready(cwd_r, report)
    os.close(cwd_r)
    lines = bytes(report).decode("utf-8", errors="replace").strip().splitlines()
    return lines[-1].strip() if lines else ""
