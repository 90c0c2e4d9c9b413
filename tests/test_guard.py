"""The conftest network guard itself."""

import socket

import pytest

pytestmark = pytest.mark.wire  # runs a process or opens a socket


def test_network_guard_blocks_outbound() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(RuntimeError, match="only 127.0.0.1"):
            sock.connect(("192.0.2.1", 80))
    finally:
        sock.close()
