"""A fork of the warm server becoming the run a client asked for: the client's fds 0-2,
environment, working directory, umask, resource limits and argv; then `hermes` as the
console script would run it, ending as an interpreter ends (threads joined, atexit,
streams flushed, death by SIGINT after an unhandled KeyboardInterrupt)."""

from __future__ import annotations

import contextlib
import io
import os
import resource
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from hermes_cli.warm.protocol import LIMITS


def _apply_limits(wanted: dict[str, Any]) -> None:
    for name, (soft, hard) in wanted.items():
        if name in LIMITS and hasattr(resource, name):
            with contextlib.suppress(ValueError, OSError):  # above the server's hard limit
                resource.setrlimit(getattr(resource, name), (soft, hard))


def stdio() -> None:
    """New sys.stdin/stdout/stderr on fds 0-2, built as CPython's start-up builds them."""
    buffered = not os.environ.get("PYTHONUNBUFFERED")
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        old = getattr(sys, name)
        write = fd > 0
        raw = io.FileIO(fd, "wb" if write else "rb", closefd=False)
        if write and not buffered:
            binary: Any = raw
        else:
            binary = io.BufferedWriter(raw) if write else io.BufferedReader(raw)
        line = buffered and (raw.isatty() or fd == 2)
        stream = io.TextIOWrapper(binary, encoding=old.encoding, errors=old.errors, newline="\n",
                                  line_buffering=line, write_through=write and not buffered)
        stream.mode = "w" if write else "r"  # type: ignore[misc]
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def finish(code: int, interrupted: bool = False) -> None:
    with contextlib.suppress(BaseException):  # the interpreter ignores these too
        threading._shutdown()  # type: ignore[attr-defined]
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - CPython exits 120 when stdout cannot be flushed
            code = 120 if code == 0 else code
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    os._exit(code & 0xFF)


def run(request: dict[str, Any], fds: list[int]) -> None:
    """Never returns: the process ends as the run ends."""
    for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # as CPython sets them at start-up
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    for fd in fds[:3]:
        if fd > 2:
            os.close(fd)
    if len(fds) > 3:
        from hermes_cli.warm import terminal

        terminal.attach(fds[3])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()  # TZ is the run's, not the server's
    tempfile.tempdir = None  # TMPDIR too, should an import have asked already
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    _apply_limits(request.get("limits", {}))
    stdio()
    sys.argv = [request["argv0"], *request["argv"]]
    from hermes_cli.app import main

    run_to_end(main)


def run_to_end(main: Callable[[], object]) -> None:
    """Run `main` as an interpreter runs a script, then end the process as it would."""
    code, interrupted = 0, False
    try:
        main()
    except SystemExit as exc:
        code = exit_code(exc)
    except KeyboardInterrupt:
        traceback.print_exc()
        code, interrupted = 1, True
    except BaseException:  # noqa: BLE001 - printed as the interpreter prints it
        sys.excepthook(*sys.exc_info())
        code = 1
    finish(code, interrupted)
