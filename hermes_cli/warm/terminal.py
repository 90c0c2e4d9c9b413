"""A run forked from the warm server has the user's terminal as fds 0-2 but not as its
controlling terminal (that belongs to the shell's session, where the client is). What
the user runs on purpose - the REPL's `!cmd` - may need it (sudo's or ssh's password
prompt opens /dev/tty), so the run asks the client to run such a command and gets its
exit code and output back, exactly as if it had run it itself.

Messages on the channel (a socketpair the client made; fd 3 of the request): a length-
prefixed JSON object each way, {"id", "argv", "cwd", "env"} -> {"id", "code", "output"}
(output base64). Commands the model runs never use it: they run in the sandbox, and the
channel's fd is not inherited by any process the run starts.

Ctrl-Z at the REPL's prompt (a key there, not a signal: the prompt reads the terminal
raw) suspends the run as a shell's job: `suspend()` stops this process' group, and, in
a forked run, first tells the client ({"suspend": PID}, no answer), which stops too
once the run has (the shell's job is the client); `fg` continues the client, which
continues the run (hermes_cli/launch/client.py).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import signal
import socket
import struct
import subprocess
from collections.abc import Callable

_channel: socket.socket | None = None
_ids = itertools.count(1)


def attach(fd: int) -> None:
    """In the forked run: fd is the channel to the client."""
    global _channel
    os.set_inheritable(fd, False)
    _channel = socket.socket(fileno=fd)


def suspend() -> None:
    """Stop as a shell's job stops on Ctrl-Z; returns once `fg` (SIGCONT) continued us.
    Cold, this process' group is the job; forked, the client is: told first, it stops
    itself once we have stopped and continues us on `fg`."""
    if _channel is not None:
        try:
            _send(_channel, {"suspend": os.getpid()})
        except OSError:  # the client is gone: nobody would continue us
            return
    os.kill(0, signal.SIGTSTP)


def _send(sock: socket.socket, message: dict) -> None:
    body = json.dumps(message).encode()
    sock.sendall(struct.pack("!I", len(body)) + body)


def _receive(sock: socket.socket) -> dict | None:
    head = _exactly(sock, 4)
    if head is None:
        return None
    body = _exactly(sock, struct.unpack("!I", head)[0])
    return None if body is None else json.loads(body)


def _exactly(sock: socket.socket, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        piece = sock.recv(size - len(data))
        if not piece:
            return None
        data += piece
    return data


def run_on_terminal(argv: list[str]) -> subprocess.CompletedProcess[bytes] | None:
    """Run `argv` (stdin /dev/null, stdout and stderr together, as the REPL's `!cmd`)
    where the user's terminal is the controlling one: through the client when this run
    was forked from the warm server; None otherwise (the caller runs it itself)."""
    if _channel is None:
        return None
    number = next(_ids)
    _send(_channel, {"id": number, "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)})
    while True:
        answer = _receive(_channel)
        if answer is None:
            raise OSError("the hermes client went away")
        if answer.get("id") == number:  # an earlier one's, interrupted by Ctrl-C: dropped
            return subprocess.CompletedProcess(argv, int(answer["code"]),
                                               base64.b64decode(answer["output"]))


def serve_one(channel: socket.socket, suspend: Callable[[int], None]) -> bool:
    """In the client: run one request from the forked run (or `suspend` along with it:
    Ctrl-Z at its prompt); False once it closed."""
    request = _receive(channel)
    if request is None:
        return False
    if "suspend" in request:
        suspend(int(request["suspend"]))
        return True
    try:
        done = subprocess.run(request["argv"], cwd=request["cwd"], env=request["env"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, check=False)
        code, output = done.returncode, done.stdout
    except OSError as exc:  # the shell is missing, the folder is gone: as the run would say
        code, output = 127, f"{exc}\n".encode()
    _send(channel, {"id": request["id"], "code": code,
                    "output": base64.b64encode(output).decode("ascii")})
    return True
