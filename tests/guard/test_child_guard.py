"""The network guard reaches `hermes` subprocesses too (tests/guard/sitecustomize.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import GUARD_DIR, child_env, hermes

pytestmark = pytest.mark.wire  # runs a process or opens a socket

GUARD_TEXT = "test tried to reach the network"
PROBE = """
import socket, sitecustomize
print(sitecustomize.__file__)
sock = socket.socket()
try:
    sock.connect(("192.0.2.1", 80))
except RuntimeError as exc:
    print("refused:", exc)
try:
    sock.connect_ex(("192.0.2.1", 80))
except RuntimeError as exc:
    print("refused:", exc)
"""


def test_child_env_puts_the_guard_first_and_keeps_pythonpath(hermes_home):
    env = child_env(hermes_home, PYTHONPATH=os.pathsep.join(["/elsewhere", str(GUARD_DIR)]))
    assert env["PYTHONPATH"].split(os.pathsep) == [str(GUARD_DIR), "/elsewhere"]


def test_guard_is_active_in_a_child_env_process(hermes_home):
    done = subprocess.run([sys.executable, "-c", PROBE], env=child_env(hermes_home),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == str(GUARD_DIR / "sitecustomize.py")
    assert lines[1:] == [f"refused: {GUARD_TEXT}: ('192.0.2.1', 80) (only 127.0.0.1 allowed)"] * 2
    assert done.stderr.count(f"[network guard] {GUARD_TEXT}: ('192.0.2.1', 80)") == 2


def test_guard_lets_loopback_through_in_a_child(hermes_home, fake_provider):
    probe = (f"import urllib.request; print(urllib.request.urlopen("
             f"'{fake_provider.base_url}/_fake/health', timeout=10).status)")
    done = subprocess.run([sys.executable, "-c", probe], env=child_env(hermes_home),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and done.stdout.strip() == "200", done.stderr
    assert "[network guard]" not in done.stderr


def test_hermes_pointed_at_the_network_is_stopped_by_the_guard(hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("retry: {attempts: 1}\ntimeout: 5\n")
    env = child_env(hermes_home, ANTHROPIC_API_KEY="test-key",
                    ANTHROPIC_BASE_URL="http://192.0.2.1")
    done = hermes(["-q", "hi"], env, cwd=tmp_path, timeout=60)
    # the SDK wraps the guard's RuntimeError into its connection error, which hermes
    # turns into one clean line; the guard also writes to fd 2 before anything is sent
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "192.0.2.1" in done.stderr and "connection failed" in done.stderr
    assert f"[network guard] {GUARD_TEXT}: ('192.0.2.1', 80)" in done.stderr
    assert "timed out" not in done.stderr  # refused by the guard, not a connect timeout
