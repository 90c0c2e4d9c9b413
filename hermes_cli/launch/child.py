"""A fork of the warm server becoming the run a client asked for: it reads the client's
request itself (the server never does: the run's environment, argv and fds reach this
process only), takes the client's fds 0-2, environment, locale, working directory,
umask, resource limits and argv, shows itself as `hermes ...` in `ps`; then runs
`hermes` as the console script would, ending as an interpreter ends (threads joined,
atexit, streams flushed, death by SIGINT after an unhandled KeyboardInterrupt)."""

from __future__ import annotations

import contextlib
import io
import json
import locale
import os
import resource
import signal
import socket
import struct
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

from hermes_cli.launch.title import set_title
from hermes_cli.warm.protocol import LIMITS

REQUEST_LIMIT = 4 << 20  # an environment and argv, never more


def read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    """A run's request: its length, JSON, fds 0-2 and (from the warm client) the
    terminal channel (tests/prefork_server.py reads its runs' requests with it too)."""
    data, fds, _flags, _addr = socket.recv_fds(conn, 65536, 4)
    try:
        if len(fds) not in (3, 4) or len(data) < 4:
            raise ValueError("a request is its length, JSON, fds 0-2 and the terminal channel")
        (size,) = struct.unpack("!I", data[:4])
        if size > REQUEST_LIMIT:
            raise ValueError("request too large")
        body = data[4:]
        while len(body) < size:
            chunk = conn.recv(size - len(body))
            if not chunk:
                raise ValueError("truncated request")
            body += chunk
        request = json.loads(body)
        if not isinstance(request, dict):
            raise ValueError("a request is a JSON object")
        return request, fds
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise


def serve(conn: socket.socket) -> None:
    """In the keeper's fork (hermes_cli/launch/keeper.py): read the client's request from
    the connection, let go of it and become the run. Never returns."""
    try:
        conn.settimeout(5.0)  # a client that never finishes its request is dropped
        request, fds = read_request(conn)
    except (OSError, ValueError):
        os._exit(2)
    conn.close()  # the keeper's end tells the client the exit status
    run(request, fds)


def _apply_limits(wanted: dict[str, Any]) -> None:
    for name, (soft, hard) in wanted.items():
        if name in LIMITS and hasattr(resource, name):
            with contextlib.suppress(ValueError, OSError):  # above the server's hard limit
                resource.setrlimit(getattr(resource, name), (soft, hard))


def stdio() -> None:
    """New sys.stdin/stdout/stderr on fds 0-2, built as CPython's start-up builds them."""
    buffered = not os.environ.get("PYTHONUNBUFFERED")
    forced = bool(os.environ.get("PYTHONIOENCODING"))  # the server started with it too
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        old = getattr(sys, name)
        write = fd > 0
        raw = io.FileIO(fd, "wb" if write else "rb", closefd=False)
        if write and not buffered:
            binary: Any = raw
        else:
            binary = io.BufferedWriter(raw) if write else io.BufferedReader(raw)
        line = buffered and (raw.isatty() or fd == 2)
        encoding, errors = (old.encoding, old.errors) if forced else (_encoding(),
                                                                     _errors(fd))
        stream = io.TextIOWrapper(binary, encoding=encoding, errors=errors, newline="\n",
                                  line_buffering=line, write_through=write and not buffered)
        stream.mode = "w" if write else "r"  # type: ignore[misc]
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _encoding() -> str:
    return "utf-8" if sys.flags.utf8_mode else locale.getencoding()


def _errors(fd: int) -> str:
    """As CPython picks them: stderr backslashreplace; stdin and stdout surrogateescape
    in UTF-8 mode and the C, POSIX and C.UTF-8 locales, strict in any other."""
    if fd == 2:
        return "backslashreplace"
    where = locale.setlocale(locale.LC_CTYPE)
    lenient = sys.flags.utf8_mode or where in ("C", "POSIX", "C.UTF-8", "C.utf8", "UTF-8")
    return "surrogateescape" if lenient else "strict"


def use_locale() -> None:
    """The run's LC_CTYPE, as an interpreter sets it at start-up (the server's is
    C.UTF-8 whatever the locale of the run that started it: hermes_cli/launch/client.py)."""
    try:
        locale.setlocale(locale.LC_CTYPE, "")
    except locale.Error:  # a locale this system does not have: C, as CPython falls back
        locale.setlocale(locale.LC_CTYPE, "C")
    if locale.setlocale(locale.LC_CTYPE) in ("C", "POSIX") and \
            os.environ.get("PYTHONUTF8") != "0":
        # CPython turns its UTF-8 mode on in the C locale (PEP 540): UTF-8 stdio and files
        with contextlib.suppress(locale.Error):
            locale.setlocale(locale.LC_CTYPE, "C.UTF-8")


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
        from hermes_cli.warm import terminal  # loaded by the server already

        terminal.attach(fds[3])
    os.environ.clear()
    os.environ.update(request["env"])
    use_locale()
    set_title(["hermes", *request["argv"]])
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
