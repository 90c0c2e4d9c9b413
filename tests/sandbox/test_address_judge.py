"""One judge of public addresses for the egress proxy and the web tools.

The IPv6 forms that carry a loopback, private or link-local IPv4 address (or are
site-local, Teredo, local-use NAT64) are refused by the proxy as by web_fetch: at the
decision (fast tier) and through the proxy of a `network: public` session, where a
dual-stack server on the host's loopback records that no connection came (wire tier).
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

import agent.sandbox.egress as egress
import agent.tools.web.policy as web
from agent.sandbox.backend import backend, make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext, ToolState

EMBEDDED = [
    "::127.0.0.1",  # IPv4-compatible
    "::ffff:0:7f00:1",  # IPv4-translated (SIIT)
    "::ffff:127.0.0.1",  # IPv4-mapped
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "64:ff9b::a9fe:a9fe",  # NAT64 of the cloud metadata address
    "64:ff9b:1::a9fe:a9fe",  # local-use NAT64
    "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1 (obfuscated)
    "fec0::1",  # site-local
    "::a9fe:a9fe",  # IPv4-compatible metadata address
    "::ffff:0:a00:1",  # IPv4-translated 10.0.0.1
    "2002:c0a8:101::1",  # 6to4 of 192.168.1.1
]


@pytest.mark.parametrize("address", EMBEDDED)
def test_the_proxy_and_the_web_tools_refuse_every_embedded_form(address: str) -> None:
    assert egress.is_public is web.is_public  # one judge, not two copies
    assert not egress.is_public(address)
    with pytest.raises(web.WebRefused):
        web.WebPolicy().target(f"http://[{address}]:8080/")


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8",
                                     "2002:808:808::1", "64:ff9b::808:808"])
def test_public_forms_stay_public(address: str) -> None:
    assert egress.is_public(address)


@pytest.mark.wire
@pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")
def test_through_the_proxy_no_form_gets_a_packet_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True)
    port = server.getsockname()[1]
    server.settimeout(0.1)
    accepted: list[object] = []
    stop = threading.Event()

    def count() -> None:
        while not stop.is_set():
            try:
                accepted.append(server.accept()[1])
            except OSError:
                continue

    worker = threading.Thread(target=count, daemon=True)
    worker.start()
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    client = ("import os, socket, sys\n"
              "host, port = os.environ['HTTP_PROXY'].rsplit(':', 1)\n"
              "for form in sys.argv[1:]:\n"
              "    c = socket.create_connection((host[7:], int(port)), 10)\n"
              "    c.sendall(f'CONNECT [{form}]:" + str(port) + " HTTP/1.1\\r\\n\\r\\n'.encode())\n"
              "    print(form, c.recv(200).split(b'\\r\\n')[0].decode())\n")
    (ws / "client.py").write_text(client)
    box = make_sandbox(SandboxSettings(network="public"), tmp_path / "hh", ws)
    ctx = ToolContext(session_id="s", home=tmp_path / "hh", cwd=ws, state=ToolState(sandbox=box), yolo=True)
    try:
        out = terminal.terminal({"command": "python3 client.py " + " ".join(EMBEDDED), "timeout": 30}, ctx)
    finally:
        terminal.release_processes(ctx.state)
        box.close()
        stop.set()
        worker.join(5)
        server.close()
    assert out.count("403 Forbidden") == len(EMBEDDED), out
    assert accepted == []
