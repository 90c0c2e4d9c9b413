"""Fixtures for REPL tests: the real `hermes` in a real pty against the fake provider."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from hermes_cli.repl import PROMPT_MARKER
from tests.helpers import HERMES, anthropic_env

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\r")


def plain(text: str) -> str:
    """Terminal output without escape sequences and carriage returns."""
    return ANSI.sub("", text)


class Repl:
    """A running `hermes` REPL in a pty."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child

    def prompt(self, timeout: float = 10) -> None:
        self.child.expect_exact(PROMPT_MARKER, timeout=timeout)

    def send(self, line: str) -> None:
        """Type `line` and press Enter."""
        self.child.send(line + "\r")

    def expect(self, text: str, timeout: float = 10) -> str:
        """Wait for `text`; return the plain output before it."""
        self.child.expect_exact(text, timeout=timeout)
        return plain(self.child.before)

    def output_until(self, text: str, timeout: float = 10) -> str:
        return self.expect(text, timeout)

    def exit_code(self, timeout: float = 10) -> int:
        self.child.expect(pexpect.EOF, timeout=timeout)
        self.child.close()
        return self.child.exitstatus


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
