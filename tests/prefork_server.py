"""The fork server behind tests/prefork.py, and the pty trampoline.

`python -m tests.prefork_server PATH` imports the provider SDKs and every hermes module
once, listens on the Unix socket PATH and forks one child per request: the child takes
the request's fds 0-2, environment, working directory and argv and runs `hermes_cli` as
`python -m hermes_cli` would (CPython's stdio set-up, exit status, atexit, threads
joined). Importing hermes' own modules ahead is faithful because importing them does
nothing (tests/test_architecture.py `test_nothing_happens_at_import`: no file, no output,
no SDK, no environment read); what a process must import lazily is checked on fresh
interpreters (tests/test_startup_imports.py), never through this server.
`python -S tests/prefork_server.py --tty PATH ARGS` is the trampoline a pty starts.

Protocol (one connection per run): a length-prefixed JSON request {"argv", "env",
"cwd"} with the fds for 0, 1 and 2; the server answers "pid N\\n" after the fork and
"exit STATUS\\n" (a raw wait status) when the child ends. A client that goes away
first (a timeout, a killed pty) takes the child's process group with it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import selectors
import signal
import socket
import struct
import sys
import threading
import traceback

PRELOAD = ("anthropic", "openai", "google.genai", "httpx", "typer", "rich.console", "rich.markdown", "yaml",
           "pydantic", "sqlite_utils", "acp",  # acp: the ACP SDK's models (~1.7 s of CPU)
           # what the SDKs' HTTP layer imports on its first request, and the bundled price
           # data hermes reads on its first price lookup (~50 ms of CPU in every child)
           "httpcore2", "h11", "anyio", "truststore", "genai_prices.data")
# SDK models every run of a provider validates, whose pydantic schemas the SDKs build on
# first use (~30 ms of CPU in each child): built once in the server
BUILT_MODELS = {
    "anthropic.types": ("RawMessageStartEvent", "RawMessageDeltaEvent", "RawMessageStopEvent",
                        "RawContentBlockStartEvent", "RawContentBlockDeltaEvent",
                        "RawContentBlockStopEvent"),
    "openai.types.chat": ("ChatCompletionChunk", "ParsedChatCompletion"),
    "openai.types.chat.chat_completion_chunk": ("Choice", "ChoiceDelta"),
    "openai.types.chat.parsed_chat_completion": ("ParsedChoice", "ParsedChatCompletionMessage"),
    "google.genai.types": ("GenerateContentResponse", "GenerateContentConfig", "Candidate",
                           "Content", "Part", "Tool", "FunctionDeclaration", "HttpOptions",
                           "HttpResponse", "GenerateContentResponseUsageMetadata"),
}
INTERPRETER_KEYS = ("PYTHON", "LANG", "LC_")


def interpreter_env(env: dict[str, str]) -> dict[str, str]:
    """The variables an interpreter reads once at start-up: a child forked from the
    server may only run with the very values the server started with."""
    return {k: v for k, v in env.items() if k.startswith(INTERPRETER_KEYS)}


def field(control: bytes, word: bytes) -> int | None:
    for line in control.split(b"\n")[:-1]:
        key, _, number = line.partition(b" ")
        if key == word:
            return int(number)
    return None


# ---- the child ---------------------------------------------------------------------------
def _stdio() -> None:
    """New sys.stdin/stdout/stderr on fds 0-2, built as CPython's start-up builds them."""
    buffered = not os.environ.get("PYTHONUNBUFFERED")
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        old = getattr(sys, name)
        write = fd > 0
        raw = io.FileIO(fd, "wb" if write else "rb", closefd=False)
        if write and not buffered:
            binary: io.RawIOBase | io.BufferedIOBase = raw
        else:
            binary = io.BufferedWriter(raw) if write else io.BufferedReader(raw)
        line = buffered and (raw.isatty() or fd == 2)
        stream = io.TextIOWrapper(binary, encoding=old.encoding, errors=old.errors, newline="\n",
                                  line_buffering=line, write_through=write and not buffered)
        stream.mode = "w" if write else "r"  # type: ignore[misc]
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _finish(code: int, interrupted: bool = False) -> None:
    """What the interpreter does at exit: join non-daemon threads, atexit, flush; a
    process ended by an unhandled KeyboardInterrupt then dies of SIGINT."""
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


def _child(request: dict, fds: list[int]) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.path[0] = os.getcwd()
    _stdio()
    sys.argv = [request["main"], *request["argv"]]
    code, interrupted = 0, False
    try:
        runpy.run_module("hermes_cli", run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = _exit_code(exc)
    except KeyboardInterrupt:
        traceback.print_exc()
        code, interrupted = 1, True
    except BaseException:  # noqa: BLE001 - printed as the interpreter prints it
        sys.excepthook(*sys.exc_info())
        code = 1
    _finish(code, interrupted)


# ---- the server --------------------------------------------------------------------------
HERMES_PACKAGES = ("agent", "frontend", "gateway", "hermes_cli", "memory", "skills", "safefs",
                   "hermes_acp")


def _hermes_modules() -> list[str]:
    """Every module of hermes' packages but the `__main__`s (~0.6 s of CPU per child)."""
    import pkgutil

    names = []
    for package in HERMES_PACKAGES:
        module = __import__(package)
        names.append(package)
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            if not info.name.endswith("__main__"):
                names.append(info.name)
    return names


def _read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _flags, _addr = socket.recv_fds(conn, 65536, 3)
    if len(data) < 4:
        raise ValueError("short request")
    (size,) = struct.unpack("!I", data[:4])
    body = data[4:]
    while len(body) < size:
        chunk = conn.recv(size - len(body))
        if not chunk:
            raise ValueError("truncated request")
        body += chunk
    return json.loads(body), fds


def serve(path: str, watch: int | None = None) -> None:
    """Serve on `path` while this process' parent lives (or, given `watch`, that pid)."""
    import gc
    import importlib.util

    gc.disable()  # nothing to collect while importing (~0.5 s of CPU saved per server)
    for name in PRELOAD:
        importlib.import_module(name)
    for name in _hermes_modules():
        importlib.import_module(name)
    for module, names in BUILT_MODELS.items():
        for name in names:  # a name a newer SDK dropped is simply not built ahead
            with contextlib.suppress(AttributeError, ImportError):
                getattr(importlib.import_module(module), name).model_rebuild()
    spec = importlib.util.find_spec("hermes_cli.__main__")  # not imported: each child does
    assert spec is not None and spec.origin
    main = spec.origin
    # The imported modules' objects live as long as the process: out of the collector's
    # sight (gc.freeze), a child's collections no longer walk (and copy-on-write) them -
    # half of a forked `hermes -q`'s CPU. What the child itself allocates is collected
    # as in any interpreter.
    gc.collect()
    gc.freeze()
    gc.enable()
    parent = os.getppid()
    alive = (lambda: os.getppid() == parent) if watch is None else (lambda: _alive(watch))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)  # the client waits for the final name
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    running: dict[int, socket.socket] = {}
    while alive():
        for key, _ in selector.select(timeout=0.02):
            if key.fileobj is listener:
                _start(listener, selector, running, main)
            else:  # a client went away before its child ended (a timeout, a killed pty)
                selector.unregister(key.fileobj)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(key.data, signal.SIGKILL)
        _reap(selector, running)
    for pid in running:
        os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _start(listener: socket.socket, selector: selectors.BaseSelector,
           running: dict[int, socket.socket], main: str) -> None:
    conn, _ = listener.accept()
    try:
        request, fds = _read_request(conn)
    except (OSError, ValueError):
        conn.close()
        return
    request["main"] = main
    pid = os.fork()
    if pid == 0:
        selector.close()
        listener.close()
        for other in running.values():
            other.close()
        conn.close()
        os.setpgid(0, 0)  # its own process group: what a signal to the "job" reaches
        _child(request, fds)
    for fd in fds:
        os.close(fd)
    running[pid] = conn
    conn.sendall(b"pid %d\n" % pid)
    selector.register(conn, selectors.EVENT_READ, pid)


def _reap(selector: selectors.BaseSelector, running: dict[int, socket.socket]) -> None:
    while running:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = running.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(conn)
            with contextlib.suppress(OSError):
                conn.sendall(b"exit %d\n" % status)
            conn.close()


# ---- the pty trampoline ------------------------------------------------------------------
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGWINCH,
             signal.SIGCONT, signal.SIGUSR1, signal.SIGUSR2)


def _forward(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signum)


def trampoline(path: str, args: list[str]) -> None:
    """The process a pty starts instead of `python -m hermes_cli`: it hands its terminal
    (fds 0-2) to a forked hermes, passes on the signals the terminal sends it (Ctrl-C
    reaches hermes' process group as in a shell) and ends as hermes ended."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    request = json.dumps({"argv": args, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    data = struct.pack("!I", len(request)) + request
    sent = socket.send_fds(conn, [data], [0, 1, 2])
    conn.sendall(data[sent:])
    control = b""
    pid = None
    while True:
        piece = conn.recv(4096)
        if not piece:
            os._exit(1)  # the server is gone
        control += piece
        if pid is None and (pid := field(control, b"pid")) is not None:
            for signum in FORWARDED:
                signal.signal(signum, lambda signum, _frame, child=pid: _forward(child, signum))
        status = field(control, b"exit")
        if status is not None:
            break
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    if sys.argv[1] == "--tty":
        trampoline(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[2] == "--watch":
        serve(sys.argv[1], int(sys.argv[3]))
    else:
        serve(sys.argv[1])
