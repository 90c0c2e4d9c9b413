"""The warm start end to end: a cold `hermes -q` starts the server, later runs are
forked from it with their own argv, environment, fds, exit status and signals; a client
that dies takes its run along; a process in other namespaces (a sandboxed command) is
never served; `hermes acp` answers from it; `hermes warm stop` ends it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_cli.warm import place
from tests.fakes.script import Reply
from tests.helpers import HERMES, anthropic_env, hermes, wait_until, warm_env, warm_status
from tests.warm.procs import command_line, descendants, memory_holds

pytestmark = pytest.mark.wire


def test_the_next_run_is_forked_from_the_server_with_its_own_input(env, runtime,
                                                                   fake_provider, tmp_path):
    before = warm_status(runtime)["runs"]
    fake_provider.script(Reply(text="warm answer"))
    result = hermes(["-q", "summarise this", "--json"], env, cwd=tmp_path,
                    input_text="PIPED-LINE-7\n")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["answer"] == "warm answer"
    assert warm_status(runtime)["runs"] == before + 1
    sent = json.dumps(fake_provider.requests[-1].body)
    assert "PIPED-LINE-7" in sent and "summarise this" in sent  # its stdin, its argv
    # and its environment: ANTHROPIC_BASE_URL led the run to this test's fake, not the
    # cold run's (the server was started by another fake's run)


def test_a_refused_run_says_the_same_and_exits_the_same_warm_or_cold(env, runtime, tmp_path):
    before = warm_status(runtime)["runs"]
    warm = hermes(["-q", "  "], env, cwd=tmp_path)
    cold = hermes(["-q", "  "], {**env, "HERMES_WARM": "0"}, cwd=tmp_path)
    assert warm_status(runtime)["runs"] == before + 1  # the cold one never reached the server
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout,
                                                           cold.stderr)
    assert warm.returncode == 1 and "-q is empty" in warm.stderr


def _stalled(env: dict[str, str], fake, cwd: Path) -> subprocess.Popen[str]:
    fake.script(Reply(text="x" * 400, delay=0.5, chunks=200))  # 100 s: past every deadline here
    proc = subprocess.Popen([*HERMES, "-q", "go"], env=env, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_until(lambda: fake.requests and fake.requests[-1].events_sent >= 2, timeout=60,
               what="the answer to stream")
    return proc


def test_sigterm_to_the_client_stops_the_run_as_it_would_stop_a_cold_one(
        env, runtime, fake_provider, tmp_path):
    proc = _stalled(env, fake_provider, tmp_path)
    assert warm_status(runtime)["running"] == 1
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert "interrupted by SIGTERM" in err and "Traceback" not in err


def test_a_killed_client_takes_its_run_with_it(env, runtime, fake_provider, tmp_path):
    proc = _stalled(env, fake_provider, tmp_path)
    proc.kill()
    proc.communicate(timeout=30)
    wait_until(lambda: warm_status(runtime)["running"] == 0, timeout=30,
               what="the orphaned run to be ended")


@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs util-linux unshare")
def test_a_process_in_other_namespaces_is_run_cold_never_served(env, runtime, fake_provider,
                                                                tmp_path):
    """What the sandbox runs has its own user and mount namespaces: even with the socket
    in reach it gets no run outside the sandbox from the server."""
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("user namespaces are not available here")
    before = warm_status(runtime)["runs"]
    fake_provider.script(Reply(text="answered cold"))
    result = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", sys.executable,
                             "-m", "hermes_cli", "-q", "hi"], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "answered cold", result.stderr
    assert warm_status(runtime)["runs"] == before


def test_acp_initialize_is_answered_by_a_forked_server(env, runtime, tmp_path):
    before = warm_status(runtime)["runs"]
    proc = subprocess.Popen([*HERMES, "acp"], env=env, cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"protocolVersion": 1}}) + "\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    assert answer["id"] == 1 and "result" in answer
    assert warm_status(runtime)["runs"] == before + 1
    proc.stdin.close()
    assert proc.wait(30) == 0


def test_status_names_the_server_of_this_installation(env, runtime):
    shown = subprocess.run([*HERMES, "warm", "status"], env=env, capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert f"pid {warm_status(runtime)['pid']} (this installation): {place.ROOT} (" in shown.stdout
    assert place.socket_path(env) is not None


def test_the_server_never_holds_a_runs_api_key(env, runtime, fake_provider, tmp_path):
    """The server read each request (the run's whole environment) before forking: a
    served run's API key stayed in its memory, and in every later run forked from it
   . Now the run reads its own request; the server never sees it."""
    canary = f"sk-ant-canary-{os.urandom(12).hex()}"
    fake_provider.script(Reply(text="keyed answer"))
    before = warm_status(runtime)["runs"]
    result = hermes(["-q", "hi"], {**env, "ANTHROPIC_API_KEY": canary}, cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == "keyed answer", result.stderr
    status = wait_until(lambda: (s := warm_status(runtime))["running"] == 0 and s, timeout=30,
                        what="the run to end")
    assert status["runs"] == before + 1  # it was served by this server
    assert canary in json.dumps(fake_provider.requests[-1].headers)  # the run had it
    assert not memory_holds(status["pid"], canary.encode())


def test_asking_for_the_status_is_not_activity(runtime):
    """`hermes warm status` always said 0 s idle: asking reset the idle clock (53)."""
    idle = wait_until(lambda: warm_status(runtime)["idle_seconds"] >= 1.0, timeout=20,
                      interval=0.1, what="the idle time to grow while being asked")
    assert idle


def test_a_forked_run_shows_as_the_hermes_command_typed(env, runtime, fake_provider, tmp_path):
    """`ps` showed each run as the server (`python3 -P -m hermes_cli.launch.server ...`)."""
    proc = _stalled(env, fake_provider, tmp_path)
    try:
        shown = [command_line(pid) for pid in descendants(warm_status(runtime)["pid"])]
        assert ("hermes", ["hermes", "-q", "go"]) in shown, shown
        assert not [argv for _, argv in shown if "hermes_cli.launch.server" in " ".join(argv)]
    finally:
        proc.kill()
        proc.communicate(timeout=30)


def test_runs_under_other_locales_are_served_by_the_same_server(env, runtime, fake_provider,
                                                                tmp_path):
    """Two servers started under different locales stopped each other in turn (53). Each
    run takes its own locale: the C locale's too (UTF-8, as CPython's UTF-8 mode)."""
    server = warm_status(runtime)
    for locale in ("POSIX", "C.UTF-8"):
        fake_provider.script(Reply(text=f"answer in {locale}: déjà ✓"))
        result = hermes(["-q", "hi"], {**env, "LANG": locale, "LC_ALL": locale}, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == f"answer in {locale}: déjà ✓"
    after = warm_status(runtime)
    assert (after["pid"], after["runs"]) == (server["pid"], server["runs"] + 2)


@pytest.fixture
def short_folder() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="hw-"))  # short: a socket's path has 108 bytes
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_stopped_or_killed_server_never_cuts_a_run_short(fake_provider, hermes_home,
                                                           tmp_path, short_folder):
    """`hermes warm stop` (or a newer server) closes the socket at once and sees running
    runs to their end; a killed server loses only the exit status: the client waits for
    its run to end before giving the shell back."""
    folder = short_folder
    env = warm_env(anthropic_env(hermes_home, fake_provider), folder)

    def started_server() -> Path:
        fake_provider.script(Reply(text="cold"))
        assert hermes(["-q", "hi"], env, cwd=tmp_path).returncode == 0
        return wait_until(lambda: next(folder.glob("hermes-warm-*/*.sock"), None), timeout=60,
                          what="a warm server")

    def streaming() -> subprocess.Popen[str]:
        fake_provider.script(Reply(text="slow " * 40, delay=0.1, chunks=20))  # ~2 s
        proc = subprocess.Popen([*HERMES, "-q", "go"], env=env, cwd=tmp_path, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wait_until(lambda: fake_provider.requests[-1].events_sent >= 2
                   if len(fake_provider.requests) > count else False, timeout=60,
                   what="the answer to stream")
        return proc

    socket = started_server()
    count = len(fake_provider.requests)
    proc = streaming()
    assert warm_status(folder)["running"] == 1
    stopped = subprocess.run([*HERMES, "warm", "stop"], env=env, capture_output=True, text=True,
                             timeout=60)
    assert "stopped 1 warm start server" in stopped.stdout
    assert not socket.exists()  # no new run is taken
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.strip() == ("slow " * 40).strip()

    socket = started_server()
    server_pid = warm_status(folder)["pid"]
    count = len(fake_provider.requests)
    proc = streaming()
    os.kill(server_pid, signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    # the run ends with its own exit status: its keeper, not the server, reports it (53)
    assert (proc.returncode, err) == (0, "")
    assert out.strip() == ("slow " * 40).strip()  # the run was not cut short


def test_a_server_that_cannot_start_says_why_and_is_not_retried_every_run(
        fake_provider, hermes_home, tmp_path, short_folder):
    env = warm_env(anthropic_env(hermes_home, fake_provider), short_folder)
    socket = place.socket_path(env)
    assert socket is not None
    socket.mkdir()  # its name is taken by a folder: bind-then-rename fails
    fake_provider.script(Reply(text="answered cold"))
    first = hermes(["-q", "hi"], env, cwd=tmp_path)
    assert first.returncode == 0 and first.stdout.strip() == "answered cold"
    log = socket.with_suffix(".log")
    wait_until(log.exists, timeout=60, what="the failed server's report")
    shown = hermes(["warm", "status"], env)
    assert "the warm start server of this installation failed:" in shown.stdout
    assert "IsADirectoryError" in shown.stdout or "Is a directory" in shown.stdout
    hermes(["warm", "stop"], env)
    assert not log.exists()  # cleared: the next run may try again
