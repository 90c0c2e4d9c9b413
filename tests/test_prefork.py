"""tests/prefork.py: a `hermes` forked from the fork server behaves as a fresh interpreter
(exit status, stdout, stderr, stdin, environment, working directory, timeout kill)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests import prefork
from tests.fakes import Reply
from tests.helpers import HERMES, anthropic_env, child_env, wait_until

pytestmark = pytest.mark.wire


def _both(args: list[str], env: dict[str, str], cwd: Path, input_text: str | None = None):
    forked = prefork.run(HERMES, args, env, cwd, 60, input_text)
    assert forked is not None, "the fork server refused a plain run"
    fresh = subprocess.run([*HERMES, *args], env=env, cwd=cwd, capture_output=True, text=True,
                           timeout=60, input=input_text)
    return forked, fresh


@pytest.mark.parametrize("args", [["--version"], ["-q"], ["--no-such-flag"], ["sessions", "list"],
                                  ["sessions", "show", "nope"]])
def test_output_and_exit_status_match_a_fresh_interpreter(args, hermes_home, tmp_path):
    forked, fresh = _both(args, child_env(hermes_home), tmp_path)
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode, fresh.stdout, fresh.stderr)


def test_stdin_environment_and_working_directory_reach_the_child(hermes_home, fake_provider,
                                                                 tmp_path):
    fake_provider.script(Reply(text="piped answer"), Reply(text="piped answer"))
    (tmp_path / "HERMES.md").write_text("the project notes say: prefork-marker\n")
    env = anthropic_env(hermes_home, fake_provider)
    forked, fresh = _both([], env, tmp_path, input_text="from stdin\n")
    assert forked.returncode == fresh.returncode == 0, forked.stderr
    assert forked.stdout == fresh.stdout == "piped answer\n"
    for record in fake_provider.requests:  # the forked run's request, then the fresh one's
        system = json.dumps(record.body["system"])
        assert "prefork-marker" in system and f"Working directory: {tmp_path}" in system
        assert record.body["messages"][0]["content"][0]["text"].startswith("from stdin")
    assert len(fake_provider.requests) == 2
    assert (hermes_home / "state.db").exists()  # HERMES_HOME from the given environment


def test_a_timeout_kills_the_child_and_raises(hermes_home, fake_provider, tmp_path):
    fake_provider.script(Reply(text="slow " * 200, delay=0.5, chunks=200))
    env = anthropic_env(hermes_home, fake_provider)
    with pytest.raises(subprocess.TimeoutExpired):
        prefork.run(HERMES, ["-q", "hi"], env, tmp_path, 2, None)
    pid = prefork.last_pid
    assert pid is not None
    wait_until(lambda: not Path(f"/proc/{pid}").exists(), timeout=30,
               what=f"the timed-out child {pid} to be gone")


def test_other_interpreter_settings_get_a_fresh_interpreter(hermes_home, tmp_path):
    env = child_env(hermes_home)
    assert prefork.run(HERMES, ["--version"], env, tmp_path, 60, None) is not None
    env["PYTHONIOENCODING"] = "latin-1"
    assert prefork.run(HERMES, ["--version"], env, tmp_path, 60, None) is None


@pytest.mark.parametrize("args", [["--version"], ["--no-such-flag"]])
def test_the_pty_trampoline_mirrors_output_and_exit_status(args, hermes_home, tmp_path):
    import pexpect

    env = child_env(hermes_home)
    results = []
    for command in (prefork.tty_command(args, env), [*HERMES, *args]):
        assert command is not None
        child = pexpect.spawn(command[0], command[1:], cwd=str(tmp_path), env=env,
                              dimensions=(40, 120), encoding="utf-8", timeout=60)
        output = child.read()
        child.close()
        results.append((child.exitstatus, child.signalstatus, output))
    assert results[0] == results[1]
