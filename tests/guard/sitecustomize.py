"""Network guard for `hermes` subprocesses started by the tests.

`tests.helpers.child_env` puts this directory first on PYTHONPATH, so every child
Python imports this module at start-up (the `site` hook) and gets the same guard as
the test process (tests/conftest.py): a socket connect to anything but loopback raises
RuntimeError naming the address, before a single packet leaves the machine.
"""

from __future__ import annotations

import contextlib
import os
import socket

GUARD_MESSAGE = "test tried to reach the network"
_LOCAL_NAMES = {"localhost", "::1"}


def _is_local(address: object) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and the like
    host = str(address[0])
    if host in _LOCAL_NAMES or host.startswith("127."):
        return True
    import ipaddress  # only here: keeps the child's start-up as fast as without the guard

    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _refuse(address: object) -> RuntimeError:
    """The error to raise, also written straight to fd 2: hermes wraps a failed connect
    into its own clean message (the SDKs catch the RuntimeError), so a test could not
    otherwise tell that the guard, not the network, stopped it."""
    message = f"{GUARD_MESSAGE}: {address!r} (only 127.0.0.1 allowed)"
    with contextlib.suppress(OSError):  # fd 2 closed: the RuntimeError still says it
        os.write(2, f"[network guard] {message}\n".encode())
    return RuntimeError(message)


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_local(address):
        raise _refuse(address)
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(address):
        raise _refuse(address)
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
ACTIVE = True
