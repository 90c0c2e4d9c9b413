"""`network: public` in process (fast tier): which addresses count as public, how proxy
requests are read."""

from __future__ import annotations

import pytest

from agent.sandbox.egress import _destination, is_public


@pytest.mark.parametrize("address", [
    "127.0.0.1", "127.8.9.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254",
    "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::1", "fe80::1%eth0", "fc00::1",
    "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::", "ff02::1",
])
def test_refused_addresses(address: str) -> None:
    assert not is_public(address)


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "140.82.112.3", "2606:4700:4700::1111",
                                     "::ffff:8.8.8.8"])
def test_public_addresses(address: str) -> None:
    assert is_public(address)


def test_requests_are_read_as_destinations() -> None:
    assert _destination("CONNECT", "github.com:443", "HTTP/1.1", b"x\r\n\r\n") == ("github.com", 443, b"")
    assert _destination("CONNECT", "[2606:4700::1]:443", "HTTP/1.1", b"x\r\n\r\n")[:2] == ("2606:4700::1", 443)
    host, port, first = _destination("GET", "http://example.com/a/b?q=1", "HTTP/1.1",
                                     b"GET http://example.com/a/b?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n")
    assert (host, port) == ("example.com", 80)
    assert first == b"GET /a/b?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n"
    for bad in [("CONNECT", "nohost"), ("GET", "https://x/"), ("GET", "/relative")]:
        with pytest.raises(ValueError):
            _destination(bad[0], bad[1], "HTTP/1.1", b"x\r\n\r\n")
