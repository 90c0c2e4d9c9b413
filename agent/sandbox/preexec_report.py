"""The cause of a failed pre-exec step, carried to the parent.

subprocess runs `preexec_fn` in the child between fork and exec; when it raises, the
child tells the parent only "Exception occurred in preexec_fn." (CPython's
_posixsubprocess writes that fixed text to its error pipe) and the cause - which setns,
which mount, which Landlock call, which errno - is lost. `reporting` wraps a pre-exec
function: in the child the exception's text goes down a pipe of our own (close-on-exec,
so a successful exec closes it unread); in the parent a `SubprocessError` from the start
is raised again as `PreexecError` carrying that text.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time
import traceback
from collections.abc import Callable, Iterator

MAX_TEXT = 4000  # bytes of the child's report kept
WAIT = 2.0  # seconds to wait for the child's report (it is written before the child exits)


class PreexecError(subprocess.SubprocessError):
    """The pre-exec step failed in the child; the message says why."""


@contextlib.contextmanager
def reporting(setup: Callable[[], None] | None) -> Iterator[Callable[[], None] | None]:
    """Around one Popen: yields `setup` wrapped to report its exception (None stays None)."""
    if setup is None:
        yield None
        return
    read_end, write_end = os.pipe2(os.O_CLOEXEC)

    def wrapped() -> None:
        try:
            setup()
        except BaseException as exc:
            lines = traceback.format_exception_only(type(exc), exc)
            where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
            text = "".join(lines).strip() + "".join(
                f" (at {os.path.basename(f.filename)}:{f.lineno} {f.name})" for f in where)
            with contextlib.suppress(OSError):
                os.write(write_end, text.encode("utf-8", "replace")[:MAX_TEXT])
            raise

    try:
        yield wrapped
    except subprocess.SubprocessError as exc:
        os.close(write_end)
        write_end = -1
        detail = _drain(read_end)
        if detail and not isinstance(exc, PreexecError):
            raise PreexecError(f"{exc} {detail}") from exc
        raise
    finally:
        if write_end >= 0:
            os.close(write_end)
        with contextlib.suppress(OSError):
            os.close(read_end)


def _drain(fd: int) -> str:
    """What the child wrote, until every writer closed the pipe (or the deadline)."""
    data, deadline = b"", time.monotonic() + WAIT
    while len(data) < MAX_TEXT and (left := deadline - time.monotonic()) > 0:
        if not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, MAX_TEXT)
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", "replace").strip()
