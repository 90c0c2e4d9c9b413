"""Host unix sockets are out of reach under `network: off` and `public` (wire tier).

Host-side servers answer on pathname sockets in places a sandboxed command can see: a
folder under /var/tmp (visible read-only), the workspace itself, and a fake
$XDG_RUNTIME_DIR whose socket appears only after the session started (a service that
starts later). The command must not get a reply from any; its own socket server, in the
session, still works; `network: on` keeps the host's sockets.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.sandbox.backend import backend, make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext, ToolState
from tests.sandbox.unix_server import REPLY, serving

pytestmark = [pytest.mark.wire, pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]
CLIENT = ("import socket, sys\n"
          "for path in sys.argv[1:]:\n"
          "    s = socket.socket(socket.AF_UNIX)\n"
          "    s.settimeout(5)\n"
          "    try:\n"
          "        s.connect(path); print('reached', s.recv(64).decode())\n"
          "    except OSError as exc:\n"
          "        print('refused', exc.errno)\n")
OWN = ("import os, socket, threading\n"
       "srv = socket.socket(socket.AF_UNIX); srv.bind('own.sock'); srv.listen()\n"
       "threading.Thread(target=lambda: srv.accept()[0].sendall(b'OWN-REPLY'), daemon=True).start()\n"
       "c = socket.socket(socket.AF_UNIX); c.connect('own.sock'); print(c.recv(9).decode())\n"
       "os.unlink('own.sock')\n")


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Path]]:
    visible = Path(tempfile.mkdtemp(prefix="hermes-sock-", dir="/var/tmp"))  # seen read-only inside
    ws = tmp_path / "ws"
    ws.mkdir()
    (visible / "xdg").mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(visible / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (ws / "client.py").write_text(CLIENT)
    (ws / "own.py").write_text(OWN)
    try:
        yield {"visible": visible, "ws": ws, "hh": tmp_path / "hh"}
    finally:
        shutil.rmtree(visible, ignore_errors=True)


def _run(ctx: ToolContext, command: str) -> str:
    return terminal.terminal({"command": command, "timeout": 20}, ctx)


@pytest.mark.parametrize("network", ["off", "public", "on"])
def test_host_sockets_are_unreachable_unless_network_is_on(places: dict[str, Path], network: str) -> None:
    visible, ws = places["visible"], places["ws"]
    box = make_sandbox(SandboxSettings(network=network), places["hh"], ws)
    ctx = ToolContext(session_id="s", home=places["hh"], cwd=ws, state=ToolState(sandbox=box), yolo=True)
    paths = [visible / "db.sock", ws / "editor.sock"]
    later = visible / "xdg" / "bus"
    try:
        with serving(paths[0]), serving(paths[1]):
            first = _run(ctx, "python3 client.py " + " ".join(map(str, paths)) + "; python3 own.py")
            with serving(later):  # a service that starts after the session did
                second = _run(ctx, f"python3 client.py {later}")
    finally:
        terminal.release_processes(ctx.state)
        box.close()
    assert "OWN-REPLY" in first, first  # the session's own socket works
    if network == "on":
        assert first.count(REPLY.decode()) == 2 and REPLY.decode() in second
    else:
        assert first.count("refused") == 2 and REPLY.decode() not in first, first
        assert "refused" in second and REPLY.decode() not in second, second
