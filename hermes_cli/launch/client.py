"""The client side of the warm start: hand this run (argv, environment, working
directory, fds 0-2) to the warm server and end as the forked run ends; or, with no
server for this installation yet, start one for the next run (saying so once per
installation) and let this one go on cold. Imports only the standard library (and
hermes' .env rules when HERMES_HOME/.env names the warm start): it runs before anything
else."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from hermes_cli.warm import place, settings
from hermes_cli.warm.protocol import RUN, field, limits

RETRY_SECONDS = 60 * 60  # after a server failed to start, before a run starts another
#: what a terminal or a supervisor sends the run; passed on to the forked run's group
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGWINCH,
             signal.SIGUSR1, signal.SIGUSR2)


#: what the first server of an installation says, once (its memory: docs/WARM.md)
ANNOUNCEMENT = ("hermes: started the warm start server, a background process (~180 MiB, "
                "mostly shared with the runs forked from it) that starts later runs in a "
                "fraction of a second; it exits after {idle} idle - `hermes warm stop` "
                "stops it, `warm: false` in config.yaml or HERMES_WARM=0 turns it off\n")


def start_server(path: Path, env: dict[str, str], idle_seconds: float) -> bool:
    """Start the server for the next run, detached (it forks away at once)."""
    keep = {k: v for k, v in env.items() if k in ("PATH", "HOME")}
    keep.update(place.python_env(env))  # never the API keys: each run brings its own
    # one locale for every server (each run takes its client's): not LANG or LC_*
    keep.update(LC_CTYPE="C.UTF-8", HERMES_WARM_IDLE=repr(idle_seconds))
    try:
        first = subprocess.Popen([sys.executable, "-P", "-m", "hermes_cli.launch.server",
                                  str(path)], env=keep, cwd="/", stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 close_fds=True, start_new_session=True)
    except OSError:
        return False
    import threading  # here: only a run that starts a server needs it

    # its first process exits as soon as the server forked away: reaped off this run's path
    threading.Thread(target=first.wait, name="hermes-warm-reap", daemon=True).start()
    return True


def announce_once(env: dict[str, str], idle_seconds: float) -> None:
    """One line on stderr the first time a server of this installation starts (for this
    HERMES_HOME: its `warm_announced` lists the installations already told)."""
    record = settings.home(env) / "warm_announced"
    install = place.installation()
    try:
        if install in record.read_text(encoding="utf-8").splitlines():
            return
    except OSError:
        pass
    try:
        record.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with open(record, "a", encoding="utf-8") as f:
            f.write(install + "\n")
    except OSError:
        return  # not said at all rather than said on every run
    sys.stderr.write(ANNOUNCEMENT.format(idle=settings.spoken(idle_seconds)))
    sys.stderr.flush()


def _would_fail(argv: list[str]) -> bool:
    """The REPL without a terminal (a script's or a pipe's `hermes`) fails or answers once:
    no resident server is started for it."""
    oneshot = any(arg in ("-q", "--query", "acp") or arg.startswith("--query=") for arg in argv)
    return not oneshot and not (os.isatty(0) and os.isatty(1))


def _failed_lately(path: Path) -> bool:
    """A server for this fingerprint failed in the last hour (its reason is NAME.log,
    shown by `hermes warm status`): do not start another one each run."""
    import time

    try:
        return time.time() - path.with_suffix(".log").stat().st_mtime < RETRY_SECONDS
    except OSError:
        return False


def _request(argv: list[str]) -> bytes:
    body = json.dumps({"argv": argv, "argv0": sys.argv[0], "env": dict(os.environ),
                       "cwd": os.getcwd(), "umask": _umask(), "limits": limits()}).encode()
    return struct.pack("!I", len(body)) + body


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _suspend(pgid: int) -> None:
    """Ctrl-Z: stop the forked run, then ourselves (the shell's job); on `fg` both go on."""
    handler = signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTSTP)
    os.kill(os.getpid(), signal.SIGTSTP)  # stopped here until the shell's SIGCONT
    signal.signal(signal.SIGTSTP, handler)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGCONT)


def _stopped_with(pgid: int) -> None:
    """Ctrl-Z at the forked REPL's prompt (a key it read, hermes_cli/warm/terminal.py):
    once the run has stopped itself, stop as its job; on `fg` continue it."""
    import time

    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and _state(pgid) not in ("T", "t", "Z", ""):
        time.sleep(0.002)  # the run stops itself right after telling us
    handler = signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTSTP)  # stopped here until the shell's SIGCONT
    signal.signal(signal.SIGTSTP, handler)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGCONT)


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _forward(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signum)


def run(argv: list[str]) -> None:
    """Hand the run to the warm server and exit as it ends. Returns (nothing handed
    over, nothing read) when there is no usable server: the caller runs cold."""
    env = dict(os.environ)
    wanted = settings.read(env)
    for problem in wanted.problems:
        sys.stderr.write(problem + "\n")
    # a fork keeps the server's file name encoding (UTF-8): another locale's run starts cold
    if not wanted.on or sys.getfilesystemencoding() != "utf-8":
        return
    path = place.socket_path(env)
    if path is None:
        return
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ours, theirs = socket.socketpair()  # the run's way to this terminal (terminal.py)
    try:
        conn.connect(str(path))
        conn.sendall(RUN)
        data = _request(argv)
        sent = socket.send_fds(conn, [data], [0, 1, 2, theirs.fileno()])
        conn.sendall(data[sent:])
    except OSError:  # no server (or a dead one's socket): start one for the next run
        conn.close()
        ours.close()
        if not _failed_lately(path) and not _would_fail(argv) and \
                start_server(path, env, wanted.idle_seconds):
            announce_once(env, wanted.idle_seconds)
        return
    finally:
        theirs.close()
    _wait(conn, ours)
    conn.close()
    ours.close()


class _Relay:
    """The signals a terminal or supervisor sends us, passed to the forked run's process
    group; those that arrive before its pid is known are kept and passed on then."""

    def __init__(self) -> None:
        self.group: int | None = None
        self.pending: list[int] = []
        for signum in FORWARDED:
            signal.signal(signum, self.received)
        signal.signal(signal.SIGTSTP, self.received)

    def received(self, signum: int, _frame: object) -> None:
        if self.group is None:
            self.pending.append(signum)
        elif signum == signal.SIGTSTP:
            _suspend(self.group)
        else:
            _forward(self.group, signum)

    def started(self, pid: int) -> None:
        self.group = pid
        for signum in self.pending:
            self.received(signum, None)

    def restore(self) -> None:
        """Refused before the fork: what arrived meanwhile acts as it would have on a
        cold start this early (a Ctrl-C ends it, a Ctrl-Z stops it); then the cold run's
        own handlers."""
        for number in self.pending:
            signal.signal(number, signal.SIG_DFL)
            os.kill(os.getpid(), number)
        for signum in (*FORWARDED, signal.SIGTSTP):
            signal.signal(signum, signal.SIG_DFL if signum != signal.SIGINT
                          else signal.default_int_handler)


def _wait(conn: socket.socket, channel: socket.socket) -> None:
    """Exits as the forked run ends; returns when the server refused the run before
    forking (nothing ran, nothing was read: the caller runs it cold). Meanwhile runs
    what the run asks to run on this terminal (hermes_cli/warm/terminal.py)."""
    import selectors  # here, not at the top: a cold start never needs them

    from hermes_cli.warm import terminal

    relay = _Relay()
    control, pid = b"", None
    selector = selectors.DefaultSelector()
    selector.register(conn, selectors.EVENT_READ)
    selector.register(channel, selectors.EVENT_READ)
    while True:
        ready = [key.fileobj for key, _ in selector.select()]
        if channel in ready and not _served(terminal.serve_one, channel):
            selector.unregister(channel)
        if conn not in ready:
            continue
        try:
            piece = conn.recv(4096)
        except OSError:  # reset: a refusal that left our request unread, or a dead server
            piece = b""
        if not piece:
            break
        control += piece
        if pid is None and (pid := field(control, b"pid")) is not None:
            relay.started(pid)
        status = field(control, b"exit")
        if status is not None:
            _end(status)
    if pid is None:
        relay.restore()
        return
    _outlive(pid)
    sys.stderr.write("hermes: error: the warm start keeper of this run was killed during "
                     "it, and its exit status with it (HERMES_WARM=0 runs hermes without "
                     "the warm start)\n")
    os._exit(1)


def _served(serve_one: Callable[[socket.socket, Callable[[int], None]], bool],
            channel: socket.socket) -> bool:
    """One `!cmd` run (or a Ctrl-Z) for the forked run; False once its end of the channel
    is gone."""
    try:
        return serve_one(channel, _stopped_with)
    except OSError:  # the run ended (or was killed) in the middle of the exchange
        return False


def _outlive(pid: int) -> None:
    """The server is gone but the run may not be: wait for it (still passing signals
    on), so the shell gets its terminal back only when the run let go of it."""
    import select

    try:
        handle = os.pidfd_open(pid)
    except OSError:  # already gone
        return
    try:
        while not select.select([handle], [], [])[0]:
            pass
    finally:
        os.close(handle)


def _end(status: int) -> NoReturn:
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status))
