"""The terminal through the real kernel sandbox: what the parent reads back, the
session's private /tmp and PID namespace, the network capability, the environment.

Each case prints nothing secret when it holds; on the old terminal (scratch files in the
system temp dir, one shared /tmp, no PID or network namespace, a denylisted environment)
every one of them failed."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from agent.errors import ToolError
from agent.sandbox.backend import Sandbox, backend, make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext, ToolState
from gateway.auth import owner_id
from gateway.workspaces import tenant_workspace
from tests.helpers import host_pids_running, wait_until

pytestmark = [pytest.mark.wire, pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]


def _ctx(box: Sandbox, ws: Path, hh: Path) -> ToolContext:
    return ToolContext(session_id="s", home=hh, cwd=ws, state=ToolState(sandbox=box), yolo=True)


def _run(ctx: ToolContext, command: str, timeout: int = 20) -> str:
    try:
        return terminal.terminal({"command": command, "timeout": timeout}, ctx)
    except ToolError as exc:
        return str(exc)


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A fake HOME and HERMES_HOME with secrets, two gateway tenants' workspaces."""
    home, hh = tmp_path / "home", tmp_path / "hh"
    files = {home / ".ssh/id_rsa": "SECRET-SSH", home / ".aws/credentials": "SECRET-AWS",
             home / ".netrc": "SECRET-NETRC", home / ".config/gh/hosts.yml": "SECRET-GH",
             hh / ".env": "X=SECRET-DOTENV", hh / "config.yaml": "gateway: {api_keys: [SECRET-KEY]}"}
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", "SECRET-PROVIDER")
    ws_a, ws_b = tenant_workspace(hh, owner_id("key-a")), tenant_workspace(hh, owner_id("key-b"))
    (ws_a / "notes.txt").write_text("SECRET-TENANT-A\n")
    return {"home": home, "hh": hh, "a": ws_a, "b": ws_b}


def test_a_symlink_on_the_scratch_output_leaks_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The old attack: replace the parent's scratch `out`/`cwd` files with links to secrets."""
    p = _home(tmp_path, monkeypatch)
    targets = [p["home"] / ".ssh/id_rsa", p["home"] / ".aws/credentials", p["hh"] / ".env",
               p["hh"] / "config.yaml", "/proc/self/environ", p["home"] / ".netrc",
               p["home"] / ".config/gh/hosts.yml", p["a"] / "notes.txt"]
    ctx = _ctx(make_sandbox(SandboxSettings(), p["hh"], p["b"]), p["b"], p["hh"])
    leaked = []
    for target in targets:
        out = _run(ctx, f'd="$(dirname "$HERMES_CWD_FILE")"; ln -sf {target} "$d/out"; '
                        f'ln -sf {target} "$d/cwd"; for f in /proc/self/fd/*; do ln -sf {target} "$f"; done; '
                        'echo done')
        if "SECRET" in out or "done" not in out:  # a secret, or the output was replaced
            leaked.append(str(target))
    terminal.release_processes(ctx.state)
    print(f"\nsymlink on the scratch output: attempted {len(targets)}, leaked {len(leaked)}")
    assert leaked == []


def test_tmp_is_private_per_session_and_kept_across_its_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _home(tmp_path, monkeypatch)
    a = _ctx(make_sandbox(SandboxSettings(), p["hh"], p["a"]), p["a"], p["hh"])
    b = _ctx(make_sandbox(SandboxSettings(), p["hh"], p["b"]), p["b"], p["hh"])
    assert "[exit code 0]" in _run(a, "echo SECRET-IN-TMP-A > /tmp/a.txt && test \"$TMPDIR\" = /tmp")
    assert "SECRET-IN-TMP-A" in _run(a, "cat /tmp/a.txt")  # the next command of A still has it
    seen_by_b = _run(b, "ls -la /tmp; cat /tmp/a.txt 2>&1; find / -xdev -name a.txt 2>/dev/null; echo b > /tmp/b")
    assert "SECRET" not in seen_by_b and "No such file" in seen_by_b and "/a.txt\n" not in seen_by_b, seen_by_b
    assert not Path("/tmp/a.txt").exists() and not Path("/tmp/b").exists()  # the host's is untouched
    for ctx in (a, b):
        terminal.release_processes(ctx.state)


def test_a_workspace_and_home_under_tmp_still_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert str(tmp_path).startswith("/tmp/")  # pytest's base: both live under /tmp
    p = _home(tmp_path, monkeypatch)
    ws = tmp_path / "project"
    ws.mkdir()
    (p["home"] / ".config/git").mkdir()
    (p["home"] / ".config/git/ignore").write_text("*.o\n")
    ctx = _ctx(make_sandbox(SandboxSettings(), p["hh"], ws), ws, p["hh"])
    out = _run(ctx, f"echo made > made.txt && cat made.txt && cat {p['home']}/.config/git/ignore && "
                    f"ls {p['home']}/.config; cat {p['home']}/.ssh/id_rsa; touch {p['home']}/x")
    assert "made" in out and "*.o" in out and "gh" not in out and "SECRET" not in out
    assert (ws / "made.txt").read_text() == "made\n" and not (p["home"] / "x").exists()
    terminal.release_processes(ctx.state)


def test_processes_are_per_session_and_end_with_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A background server lives on for the session's next command, is listed there, is
    invisible to another session (ps and /proc/*/cmdline), and ends with its session."""
    p = _home(tmp_path, monkeypatch)
    a = _ctx(make_sandbox(SandboxSettings(network="off"), p["hh"], p["a"]), p["a"], p["hh"])
    b = _ctx(make_sandbox(SandboxSettings(network="off"), p["hh"], p["b"]), p["b"], p["hh"])
    server = ("import socket\ns=socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
              "open('port', 'w').write(str(s.getsockname()[1]))\n"
              "while True:\n    c, _ = s.accept(); c.sendall(b'PONG-FROM-SERVER'); c.close()\n")
    (p["a"] / "server.py").write_text(server)
    started = _run(a, "setsid python3 server.py SECRET-MARKER-A > /dev/null 2>&1 &\n"
                      "for i in $(seq 200); do test -s port && break; sleep 0.05; done; cat port")
    assert "[exit code 0]" in started
    client = ("python3 -c \"import socket; c=socket.create_connection(('127.0.0.1', int(open('port').read())), 5);"
              " print(c.recv(64).decode())\"")
    later = _run(a, f"{client}; ps ax")
    assert "PONG-FROM-SERVER" in later and "SECRET-MARKER-A" in later  # alive and listed
    other = _run(b, "ps axww; cat /proc/*/cmdline | tr '\\0' ' '; ls /proc")
    assert "SECRET-MARKER-A" not in other and "pytest" not in other  # neither A's nor hermes'
    assert host_pids_running("SECRET-MARKER-A")
    terminal.release_processes(a.state)
    wait_until(lambda: not host_pids_running("SECRET-MARKER-A"), timeout=10,
               what="the session's server to end with the session")
    terminal.release_processes(b.state)


class _Listener:
    """A 127.0.0.1 listener on the host that counts the connections it saw."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.seen = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.seen += 1
            conn.close()


@pytest.mark.parametrize("network", ["off", "on"])
def test_network_off_reaches_no_host_service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, network: str) -> None:
    p = _home(tmp_path, monkeypatch)
    listener = _Listener()
    ctx = _ctx(make_sandbox(SandboxSettings(network=network), p["hh"], p["b"]), p["b"], p["hh"])
    out = _run(ctx, f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {listener.port}), 3);"
                    " print('CONNECTED')\" 2>&1 | tail -1; ip -o addr 2>/dev/null | awk '{print $2}'")
    terminal.release_processes(ctx.state)
    try:
        if network == "off":
            assert "CONNECTED" not in out and "refused" in out.lower() and listener.seen == 0, out
        else:  # the control: the same command does reach it when the network is on
            assert "CONNECTED" in out, out
            wait_until(lambda: listener.seen == 1, what="the listener to count the connection")
    finally:  # closed only now: a connection not yet accepted would be dropped uncounted
        listener.sock.close()


def test_only_allowlisted_variables_reach_a_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = _home(tmp_path, monkeypatch)
    monkeypatch.setenv("REDIS_URL", "redis://:SECRET-REDIS-PW@h:6379")
    monkeypatch.setenv("SOME_SERVICE_CONFIG", "SECRET-UNKNOWN-NAME")
    monkeypatch.setenv("MYAPP_MODE", "fast")
    monkeypatch.setenv("LC_TIME", "C")
    box = make_sandbox(SandboxSettings(env_allow=("MYAPP_*",)), p["hh"], p["b"])
    ctx = _ctx(box, p["b"], p["hh"])
    out = _run(ctx, "env; tr '\\0' '\\n' < /proc/self/environ; cat /proc/1/environ /proc/$$/environ")
    terminal.release_processes(ctx.state)
    assert "SECRET" not in out and "MYAPP_MODE=fast" in out and "LC_TIME=C" in out
    assert f"HOME={p['home']}" in out and "PATH=" in out and "TMPDIR=/tmp" in out


def test_network_public_goes_out_only_through_the_proxy_and_never_to_private_addresses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Raw connects reach nothing (the session's own network namespace); the proxy refuses
    loopback, link-local (cloud metadata) and private names before connecting anywhere."""
    p = _home(tmp_path, monkeypatch)
    listener = _Listener()
    box = make_sandbox(SandboxSettings(network="public"), p["hh"], p["b"])
    ctx = _ctx(box, p["b"], p["hh"])
    ask = ("import os, socket, sys\n"
           "for target in sys.argv[1:]:\n"
           "    port = int(os.environ['HTTPS_PROXY'].rsplit(':', 1)[1])\n"
           "    c = socket.create_connection(('127.0.0.1', port), 5)\n"
           "    c.sendall(f'CONNECT {target} HTTP/1.1\\r\\nHost: {target}\\r\\n\\r\\n'.encode())\n"
           "    print(target, c.recv(300).decode().splitlines()[0])\n")
    (p["b"] / "ask.py").write_text(ask)
    raw = (f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {listener.port}), 3)\" "
           "2>&1 | tail -1")
    out = _run(ctx, f"{raw}; python3 ask.py 127.0.0.1:{listener.port} localhost:{listener.port} "
                    "169.254.169.254:80 10.0.0.1:80")
    assert "refused" in out.lower() and out.count("403 Forbidden") == 4 and listener.seen == 0, out
    box.session.egress.allow = lambda address: True  # the control: the proxy path itself works
    allowed = _run(ctx, f"python3 ask.py 127.0.0.1:{listener.port}")
    terminal.release_processes(ctx.state)
    listener.sock.close()
    assert "200 Connection established" in allowed
    wait_until(lambda: listener.seen == 1, timeout=10, what="the proxied connection")
