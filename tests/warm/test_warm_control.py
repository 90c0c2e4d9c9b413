"""A warm start the user can see and control: the first server of an
installation says so once, an idle server exits (configurable), a run that would fail
for want of a terminal starts none, `hermes warm stop` stops this installation's server
only (`--all`: every one), `hermes warm status` names each server's installation."""

from __future__ import annotations

import json
import shutil
import socket
import struct
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_cli.warm import place
from tests.fakes.script import Reply
from tests.helpers import anthropic_env, child_env, hermes, wait_until, warm_env

pytestmark = pytest.mark.wire


@pytest.fixture
def short_folder() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="hw-"))  # short: a socket's path has 108 bytes
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def _server_pid(folder: Path) -> int:
    from hermes_cli.warm.protocol import ask

    socket_path = wait_until(lambda: next(folder.glob("hermes-warm-*/*.sock"), None),
                             timeout=90, what="a warm server")
    answer = wait_until(lambda: ask(socket_path, "status"), timeout=30, what="its status")
    return int(answer["pid"])


def test_the_first_server_says_so_once_and_an_idle_one_exits(fake_provider, hermes_home,
                                                            tmp_path, short_folder):
    (hermes_home / "config.yaml").write_text("warm_idle_minutes: 0.05\n")  # 3 s
    env = warm_env(anthropic_env(hermes_home, fake_provider), short_folder)
    env.pop("HERMES_WARM_IDLE")

    # a REPL without a terminal (the quick start's first `hermes` in a pipe) fails at
    # start: it leaves no resident server behind (and so says nothing about one)
    failed = hermes([], env, cwd=tmp_path, input_text="")
    assert failed.returncode == 1 and "no message on stdin" in failed.stderr
    assert "warm start server" not in failed.stderr
    assert not (hermes_home / "warm_announced").exists()

    for first in (True, False):
        fake_provider.script(Reply(text="answer"))
        result = hermes(["-q", "hi"], env, cwd=tmp_path)
        assert result.returncode == 0 and result.stdout.strip() == "answer", result.stderr
        said = [line for line in result.stderr.splitlines() if "warm start server" in line]
        if first:
            assert len(said) == 1, result.stderr
            assert "MiB" in said[0] and "exits after 3 s idle" in said[0]
            assert "hermes warm stop" in said[0] and "HERMES_WARM=0" in said[0]
            assert "warm: false" in said[0]
        else:
            assert said == []  # once per installation
        pid = _server_pid(short_folder)
        wait_until(lambda pid=pid: _gone(pid), timeout=60, interval=0.1,
                   what="the idle server to exit by itself")
        assert list(short_folder.glob("hermes-warm-*/*.sock")) == []


class FakeServer:
    """A warm server's status/stop answers only, as another installation's server."""

    def __init__(self, path: Path, install: str) -> None:
        self.install, self.ops = install, []
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen(8)
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                size = struct.unpack("!I", conn.recv(4))[0]
                op = json.loads(conn.recv(size))["op"]
                self.ops.append(op)
                conn.sendall(json.dumps({
                    "pid": 4242, "install": self.install, "runs": 3, "running": 0,
                    "started": 0, "idle_seconds": 5, "idle_limit": 900, "rss_kib": 1024,
                    "pss_kib": 512}).encode() + b"\n")

    def close(self) -> None:
        self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.thread.join(10)


def test_stop_stops_this_installations_server_and_status_names_each(hermes_home, tmp_path,
                                                                     short_folder):
    env = warm_env(child_env(hermes_home), short_folder)
    where = place.folder(env)
    assert where is not None
    ours = FakeServer(where / "a.sock", place.installation())
    other = FakeServer(where / "b.sock", "/opt/python3|/srv/other-hermes")
    try:
        shown = hermes(["warm", "status"], env)
        assert f"(this installation): {place.ROOT} (" in shown.stdout, shown.stdout
        assert "/srv/other-hermes (/opt/python3)" in shown.stdout
        stopped = hermes(["warm", "stop"], env)
        assert "stopped 1 warm start server of this installation" in stopped.stdout
        assert "stop" in ours.ops and "stop" not in other.ops
        every = hermes(["warm", "stop", "--all"], env)
        assert every.returncode == 0, every.stderr
        assert "stop" in other.ops
    finally:
        ours.close()
        other.close()
