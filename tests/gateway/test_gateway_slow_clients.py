"""The gateway's HTTP guards with real sockets: slow headers and bodies are cut, the
connection cap drops the longest-waiting slow client so /health still answers, and
accept/loop errors are one rate-limited line."""

from __future__ import annotations

import io
import socket
import time

import httpx
import pytest

from frontend.config.settings import load_settings
from gateway.boot import build_app
from gateway.guard import Limits, _describe, _RateLimited
from gateway.listener import GatewayServer

pytestmark = pytest.mark.wire  # real servers and processes

KEY = "key-alpha-0123456789"


@pytest.fixture
def app(hermes_home):
    (hermes_home / "config.yaml").write_text(
        f"provider: anthropic\napi_key: k\ngateway: {{api_keys: [{KEY}]}}\n")
    return build_app(load_settings(hermes_home), hermes_home)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            if sock.recv(1024) == b"":
                return True
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
    return False


def _health(server: GatewayServer) -> int:
    return httpx.get(f"http://127.0.0.1:{server.port}/health", timeout=10).status_code


def test_slow_headers_and_body_are_cut(app):
    with GatewayServer(app, limits=Limits(header_timeout=0.5, body_timeout=0.5)) as server:
        slow = socket.create_connection(("127.0.0.1", server.port))
        slow.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # headers never finish
        body = socket.create_connection(("127.0.0.1", server.port))
        body.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                     b"Authorization: Bearer " + KEY.encode() + b"\r\n"
                     b"Content-Length: 1000\r\n\r\n{")
        assert _closed_within(slow, 10) and _closed_within(body, 10)
        assert server.stats.timed_out == 2
        assert _health(server) == 200


def test_full_server_drops_the_oldest_slow_client_for_a_fresh_one(app):
    with GatewayServer(app, limits=Limits(max_connections=20, header_timeout=60)) as server:
        slow = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(40)]
        for sock in slow:
            sock.sendall(b"GET /health HTTP/1.1\r\n")
        assert _health(server) == 200  # answered during the flood
        assert server.stats.evicted >= 20
        for sock in slow:
            sock.close()
        deadline = time.monotonic() + 10
        while _health(server) != 200 and time.monotonic() < deadline:
            pass
        assert _health(server) == 200


def test_accept_errors_are_one_line_per_interval():
    out = io.StringIO()
    limiter = _RateLimited(every=3600, stream=out)
    for _ in range(10_000):
        limiter.emit(*_describe({"message": "socket.accept() out of system resource",
                                 "exception": OSError(24, "Too many open files")}))
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert "cannot accept connections: Too many open files" in lines[0]
    assert "Traceback" not in out.getvalue()


def test_a_trickled_body_is_cut_at_the_body_timeout_with_a_408(app):
    """One byte every 0.1 s never leaves the connection idle, yet the whole body must
    arrive within body_timeout of the headers: the client gets a 408 and the close."""
    with GatewayServer(app, limits=Limits(header_timeout=5, body_timeout=1.0)) as server:
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                     b"Authorization: Bearer " + KEY.encode() + b"\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
        started, answer = time.monotonic(), b""
        sock.settimeout(0.1)  # the pace of the trickle: each wait is also a read
        while time.monotonic() - started < 10:
            try:
                piece = sock.recv(4096)
            except TimeoutError:
                sock.sendall(b" ")
                continue
            except ConnectionResetError:
                break
            if not piece:
                break
            answer += piece
        elapsed = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408 "), answer
        assert b"request_timeout" in answer and elapsed < 5
        assert server.stats.body_timed_out == 1
        assert _health(server) == 200
