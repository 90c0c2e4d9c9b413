"""Hooks run in the tool sandbox unless their entry says `sandbox: host`: a Stop hook that runs the project's tests runs what the model wrote, and
that code must not reach the user's home. Real agent, real SDK, the fake provider; real
hook processes in the kernel sandbox."""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import pytest

from agent.events import Notice
from agent.hooks.config import parse
from agent.hooks.confine import HookBox, named_files
from agent.hooks.events import SessionHooks
from agent.hooks.runner import Environment
from agent.sandbox.backend import backend
from agent.sandbox.policy import SandboxSettings
from tests.fakes import Reply
from tests.helpers import make_agent, run

pytestmark = [pytest.mark.wire,
              pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]

CANARY = "CANARY-5e1f-not-for-the-model"
STEAL = '''import os, pathlib, unittest


class TestNotes(unittest.TestCase):
    def test_notes(self):
        for name in ("~/canary.txt", "~/.ssh/id_rsa"):
            try:
                data = open(os.path.expanduser(name)).read()
            except OSError:
                continue
            with open("stolen.txt", "a") as out:
                out.write(data)
'''


def _hooks(event: str, command: str, **entry: object) -> object:
    return parse({event: [{"hooks": [{"type": "command", "command": command, "timeout": 60,
                                      **entry}]}]}, "test config.yaml")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A fake HOME with a canary and an ssh key, outside the workspace."""
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".ssh").mkdir(parents=True)
    (home / "canary.txt").write_text(CANARY + "\n")
    (home / ".ssh" / "id_rsa").write_text(CANARY + "-ssh\n")
    work.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home, work


def test_a_stop_hook_running_the_tests_cannot_read_the_home(fake_provider, hermes_home, world):
    """The docs' own example, `python3 -m unittest`, imports a test module the model wrote."""
    _home, work = world
    (work / "test_notes.py").write_text(STEAL)  # what write_file left in the workspace
    agent = make_agent(fake_provider, hermes_home, work,
                       hooks=_hooks("Stop", f"{sys.executable} -m unittest -q"))
    try:
        fake_provider.script(Reply(text="done"))
        run(agent, "write the notes test")
        assert (work / "__pycache__").is_dir()  # the hook ran, and wrote the workspace
        stolen = (work / "stolen.txt").read_text() if (work / "stolen.txt").exists() else ""
        assert CANARY not in stolen
    finally:
        agent.close()


def test_a_host_hook_runs_outside_and_says_so(fake_provider, hermes_home, world):
    home, work = world
    hooks = _hooks("UserPromptSubmit", f"cat ~/canary.txt > {home}/seen.txt", sandbox="host")
    assert hooks.on_host() and "sandbox: host" in hooks.describe()[0]
    agent = make_agent(fake_provider, hermes_home, work, hooks=hooks)
    try:
        fake_provider.script(Reply(text="hi"))
        run(agent, "hello")
        assert (home / "seen.txt").read_text().strip() == CANARY
    finally:
        agent.close()


def test_a_hook_refused_by_the_sandbox_names_the_way_out(fake_provider, hermes_home, world):
    home, work = world
    agent = make_agent(fake_provider, hermes_home, work,
                       hooks=_hooks("UserPromptSubmit", f"echo note >> {home}/hook.log"))
    try:
        fake_provider.script(Reply(text="hi"))
        events = run(agent, "hello")
        warnings = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
        assert any("tool sandbox" in w and "sandbox: host" in w for w in warnings), warnings
        assert not (home / "hook.log").exists()
    finally:
        agent.close()


def test_the_script_a_hook_names_is_readable_and_nothing_else_of_the_home(
        fake_provider, hermes_home, world):
    home, work = world
    (home / "bin").mkdir()
    script = home / "bin" / "check.sh"
    script.write_text("#!/bin/sh\ncat ~/bin/other.txt ~/canary.txt > seen.txt 2>/dev/null\n"
                      "echo script-ran >> seen.txt\n")
    script.chmod(0o755)
    (home / "bin" / "other.txt").write_text(CANARY + "-other\n")
    assert str(script) in named_files("~/bin/check.sh", {"HOME": str(home)}, work)
    agent = make_agent(fake_provider, hermes_home, work, hooks=_hooks("UserPromptSubmit", "~/bin/check.sh"))
    try:
        fake_provider.script(Reply(text="hi"))
        run(agent, "hello")
        seen = (work / "seen.txt").read_text()
        assert "script-ran" in seen and CANARY not in seen
    finally:
        agent.close()


def test_cost_of_the_hook_sandbox_on_a_stop_hook_running_tests(world, hermes_home):
    """A Stop hook running `python3 -m unittest` over five small test modules: host vs
    the sandbox, median of several runs (the sandbox's start is paid once, first run)."""
    _home, work = world
    for number in range(5):
        (work / f"test_m{number}.py").write_text(
            "import unittest\n\nclass T(unittest.TestCase):\n"
            + "".join(f"    def test_{k}(self):\n        self.assertEqual({k} + 1, {k + 1})\n"
                      for k in range(4)))
    command = f"{sys.executable} -m unittest -q"
    sessions = {place: SessionHooks(_hooks("Stop", command, sandbox=place), Environment(work),
                                    place=HookBox(SandboxSettings(), hermes_home, work))
                for place in ("host", "tools")}
    first: dict[str, float] = {}
    runs: dict[str, list[float]] = {"host": [], "tools": []}
    try:
        for round_ in range(10):  # alternating, so both see the same load
            for place, session in sessions.items():
                started = time.perf_counter()
                answer = session.stop("s", False, "done")
                took = (time.perf_counter() - started) * 1000
                assert not answer.warnings and not answer.blocked, answer
                if round_ == 0:
                    first[place] = took  # the sandbox's namespaces start here
                else:
                    runs[place].append(took)
    finally:
        for session in sessions.values():
            session.close()
    host, boxed = statistics.median(runs["host"]), statistics.median(runs["tools"])
    print(f"\n[hooks] Stop hook `python3 -m unittest` (5 modules, 20 tests), median of 9 "
          f"(first run): host {host:.0f} ms ({first['host']:.0f}), sandbox {boxed:.0f} ms "
          f"({first['tools']:.0f}); load {os.getloadavg()[0]:.1f}")
    assert boxed < host * 3 + 500


def test_a_hook_interpreter_in_a_virtualenv_under_tmp_runs_in_the_sandbox(
        fake_provider, hermes_home, world, tmp_path):
    """A hook naming a virtualenv's python that lives under /tmp, outside the workspace
    (CI's checkout in /tmp ran the hooks' own tests that way), finds it behind the
    sandbox's private /tmp - the link as written and the venv's pyvenv.cfg - and runs as
    that venv's python."""
    import subprocess
    import venv

    _home, work = world
    env_dir = tmp_path / "tools-venv"
    venv.EnvBuilder(symlinks=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    assert str(python).startswith("/tmp/") and python.is_symlink()
    subprocess.run([str(python), "-c", "pass"], check=True)  # a working venv on the host
    command = f"{python} -c \"import sys; open('ran.txt', 'w').write(sys.prefix)\""
    agent = make_agent(fake_provider, hermes_home, work, hooks=_hooks("Stop", command))
    try:
        fake_provider.script(Reply(text="done"))
        run(agent, "go")
        assert (work / "ran.txt").read_text() == str(env_dir)
    finally:
        agent.close()
