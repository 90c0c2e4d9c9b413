"""Fixtures for REPL tests: the real `hermes` in a real pty against the fake provider."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from tests import prefork
from tests.helpers import HERMES, Repl, anthropic_env, plain  # noqa: F401 - re-exported


@pytest.fixture
def spawn_repl(hermes_home: Path, fake_provider, tmp_path: Path,
               request: pytest.FixtureRequest) -> Iterator[Callable[..., Repl]]:
    """spawn_repl(*args) -> Repl started in an empty working directory, prompt shown.
    The REPL is forked from tests/prefork.py's server (its pty handed over by a small
    trampoline that passes on the terminal's signals); modules marked
    `fresh_interpreter` start `python -m hermes_cli` in the pty itself."""
    children: list[pexpect.spawn] = []
    workdir = tmp_path / "work"
    workdir.mkdir()
    fresh = request.node.get_closest_marker("fresh_interpreter") is not None

    def spawn(*args: str, wait: bool = True) -> Repl:
        env = anthropic_env(hermes_home, fake_provider)
        command = None if fresh else prefork.tty_command(list(args), env)
        command = command or [*HERMES, *args]
        child = pexpect.spawn(command[0], command[1:], cwd=str(workdir), env=env,
                              dimensions=(40, 120), encoding="utf-8", timeout=15)
        children.append(child)
        repl = Repl(child)
        if wait:
            repl.prompt()
        return repl

    yield spawn
    for child in children:
        if child.isalive():
            child.terminate(force=True)
