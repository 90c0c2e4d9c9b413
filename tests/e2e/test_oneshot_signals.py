"""`hermes -q` stopped by a signal while the provider stalls (headers and the first
event sent, then nothing): SIGTERM exits 143, SIGINT 130, the session is saved, and no
traceback (wire tier: a real process, the fake provider)."""

from __future__ import annotations

import signal
import subprocess

import pytest

from tests.fakes import Reply
from tests.helpers import HERMES, anthropic_env, hermes_command, wait_until

pytestmark = pytest.mark.wire


def _signalled(proc: subprocess.Popen[str], sig: signal.Signals, ready, what: str) -> str:
    """Send `sig` once `ready()`; the process' stderr once it ended (deadlines only)."""
    try:
        wait_until(ready, timeout=60, what=what)
        proc.send_signal(sig)
        return proc.communicate(timeout=15)[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_during_a_stalled_call_exits_128_plus_its_number(fake_provider, hermes_home, tmp_path,
                                                                   sig, code):
    fake_provider.script(Reply(text="never " * 4, delay=20, chunks=4))
    env = anthropic_env(hermes_home, fake_provider)  # forked from tests/prefork.py's server,
    proc = subprocess.Popen(hermes_command(["-q", "go"], env), env=env,  # which passes signals on
                            cwd=tmp_path, text=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = _signalled(proc, sig, lambda: fake_provider.requests and
                     fake_provider.requests[0].events_sent >= 1, "the stalled stream to start")
    assert proc.returncode == code, err
    assert f"interrupted by {sig.name}" in err and "Traceback" not in err


def _waiting_in_select(pid: int) -> bool:
    """The process is blocked in select/poll (hermes waiting for piped stdin)."""
    try:
        number = open(f"/proc/{pid}/syscall").read().split()[0]  # noqa: SIM115, PTH123
    except (OSError, IndexError):
        return False
    return number in ("7", "23", "270", "271")  # poll, select, pselect6, ppoll (x86-64)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_before_the_question_is_sent_exits_128_plus_its_number(fake_provider, hermes_home,
                                                                         tmp_path, sig, code):
    proc = subprocess.Popen([*HERMES, "-q", "go"], env=anthropic_env(hermes_home, fake_provider),
                            cwd=tmp_path, text=True, stdin=subprocess.PIPE,  # open, silent: hermes waits
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = _signalled(proc, sig, lambda: _waiting_in_select(proc.pid), "hermes to wait for stdin")
    assert proc.returncode == code, err
    assert f"interrupted by {sig.name} before the question was sent" in err and "Traceback" not in err
    assert fake_provider.requests == []
