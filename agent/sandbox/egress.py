"""`network: public`: out to public addresses only, through a proxy hermes runs.

The session gets the network namespace of `network: off` (only its own loopback: the
kernel refuses every other address before a packet leaves). hermes makes a listening
socket on 127.0.0.1 *inside* that namespace (a short-lived thread enters it to create
the socket) and serves HTTP proxy requests on it from hermes' own network: `CONNECT
host:port` (HTTPS, git, pip, npm) and absolute-URI requests (plain HTTP). The proxy
resolves the host itself and connects only to an address that is public - judged by
agent/sandbox/addresses.py, the web tools' judge too: no loopback, private, link-local
(cloud metadata at 169.254.169.254), CGNAT, multicast or reserved address, nor an IPv6
form carrying one - to the very address it checked (no DNS rebinding). The tools find it through HTTP_PROXY/HTTPS_PROXY/ALL_PROXY; programs that
ignore proxies (raw sockets, ssh) get no network. No DNS resolver is needed inside: the
proxy resolves names.
"""

from __future__ import annotations

import contextlib
import ctypes
import selectors
import socket
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

from agent.sandbox.addresses import is_public

CLONE_NEWNET = 0x40000000
HEAD_MAX, HEAD_TIMEOUT, CONNECT_TIMEOUT, IDLE_TIMEOUT = 65536, 30.0, 10.0, 600.0


class Egress:
    """The proxy of one session: a listener inside its network namespace."""

    def __init__(self, net_fd: int, allow: Callable[[str], bool] = is_public) -> None:
        self.allow = allow
        self.sock = _listen_in(net_fd)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, name="sandbox-egress", daemon=True).start()

    def environment(self) -> dict[str, str]:
        url = f"http://127.0.0.1:{self.port}"
        names = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
        env = dict.fromkeys(names, url)
        env["NO_PROXY"] = env["no_proxy"] = "localhost,127.0.0.1,::1"
        return env

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(HEAD_TIMEOUT)
            try:
                head = _read_head(conn)
                method, target, version = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
                host, port, first = _destination(method, target, version, head)
                upstream = self._connect(host, port)
            except Refused as exc:
                _reply(conn, 403, str(exc))
                return
            except (OSError, ValueError, UnicodeError):
                _reply(conn, 400, "hermes sandbox proxy: a bad or incomplete request")
                return
            with upstream:
                if method.upper() == "CONNECT":
                    conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                else:
                    upstream.sendall(first)
                _pipe(conn, upstream)

    def _connect(self, host: str, port: int) -> socket.socket:
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise Refused(f"hermes sandbox proxy: cannot resolve {host}") from exc
        allowed = [info for info in found if self.allow(str(info[4][0]))]
        if not allowed:
            raise Refused(f"hermes sandbox proxy: {host} is not a public address (sandbox.network "
                          "is public: loopback, private and link-local addresses are refused)")
        family, kind, proto, _, address = allowed[0]
        upstream = socket.socket(family, kind, proto)
        upstream.settimeout(CONNECT_TIMEOUT)
        try:
            upstream.connect(address)  # the address that was checked, not the name again
        except OSError:
            upstream.close()
            raise
        return upstream


class Refused(Exception):
    pass


def _listen_in(net_fd: int) -> socket.socket:
    """A listening socket on 127.0.0.1 of the namespace `net_fd` (made by a thread that
    enters it; network namespaces are per thread, and the socket stays in its own)."""
    made: list[socket.socket | BaseException] = []

    def enter_and_listen() -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.setns(net_fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns into the session's network namespace")
            made.append(socket.create_server(("127.0.0.1", 0)))
        except BaseException as exc:  # handed to the caller
            made.append(exc)

    worker = threading.Thread(target=enter_and_listen, name="sandbox-egress-listen")
    worker.start()
    worker.join()
    if not made or isinstance(made[0], BaseException):
        raise OSError(f"the egress proxy could not listen ({made[0] if made else 'no answer'})")
    return made[0]


def _read_head(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk or len(data) > HEAD_MAX:
            raise ValueError("incomplete request head")
        data += chunk
    return data


def _destination(method: str, target: str, version: str, head: bytes) -> tuple[str, int, bytes]:
    """(host, port, bytes to send first) for a CONNECT or an absolute-URI request."""
    if method.upper() == "CONNECT":
        parts = urlsplit("//" + target)
        if not parts.hostname or parts.port is None:
            raise ValueError("CONNECT needs host:port")
        return parts.hostname, parts.port, b""
    parts = urlsplit(target)
    if parts.scheme.lower() != "http" or not parts.hostname:
        raise ValueError("only CONNECT and http:// requests")
    path = parts.path or "/"
    line = f"{method} {path}{'?' + parts.query if parts.query else ''} {version}".encode("latin-1")
    return parts.hostname, parts.port or 80, line + head[head.index(b"\r\n"):]


def _reply(conn: socket.socket, status: int, text: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden"}[status]
    body = (text + "\n").encode()
    with contextlib.suppress(OSError):
        conn.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: "
                     f"{len(body)}\r\nConnection: close\r\n\r\n".encode() + body)


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Copy both ways until one side closes or nothing moves for IDLE_TIMEOUT."""
    with selectors.DefaultSelector() as sel:
        sel.register(a, selectors.EVENT_READ, b)
        sel.register(b, selectors.EVENT_READ, a)
        while True:
            ready = sel.select(IDLE_TIMEOUT)
            if not ready:
                return
            for key, _ in ready:
                try:
                    data = key.fileobj.recv(65536)  # type: ignore[union-attr]
                    if not data:
                        return
                    key.data.sendall(data)
                except OSError:
                    return
