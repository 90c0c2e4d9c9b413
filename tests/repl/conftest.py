"""Fixtures for REPL tests: the real `hermes` in a real pty against the fake provider."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from tests.helpers import HERMES, Repl, anthropic_env, plain  # noqa: F401 - re-exported


@pytest.fixture
def spawn_repl(hermes_home: Path, fake_provider, tmp_path: Path) -> Iterator[Callable[..., Repl]]:
    """spawn_repl(*args) -> Repl started in an empty working directory, prompt shown."""
    children: list[pexpect.spawn] = []
    workdir = tmp_path / "work"
    workdir.mkdir()

    def spawn(*args: str, wait: bool = True) -> Repl:
        child = pexpect.spawn(HERMES[0], [*HERMES[1:], *args], cwd=str(workdir),
                              env=anthropic_env(hermes_home, fake_provider),
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
