"""Fixtures for REPL tests: the real `hermes` in a real pty against the fake provider."""

from __future__ import annotations

import re
import time
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


CPR_REQUEST = "\x1b[6n"
CPR_REPLY = "\x1b[1;1R"  # "the cursor is on row 1": the whole screen is free below


class Repl:
    """A running `hermes` REPL in a pty; output is matched with escape codes removed
    (styles such as dim and bold remain under NO_COLOR and split lines otherwise)."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self._raw = ""  # raw output read so far
        self._pos = 0  # plain-text position already consumed by expect()
        self._cpr = 0  # cursor-position requests answered

    def _read(self, timeout: float) -> None:
        """Read output; answer prompt_toolkit's cursor-position requests as a terminal
        would (the bottom toolbar is drawn only once the screen height is known)."""
        self._raw += self.child.read_nonblocking(65536, timeout=timeout)
        requests = self._raw.count(CPR_REQUEST)
        if requests > self._cpr:
            self.child.send(CPR_REPLY * (requests - self._cpr))
            self._cpr = requests

    def _plain(self) -> str:
        return plain(self._raw)

    def expect(self, text: str, timeout: float = 10) -> str:
        """Wait for `text` in the plain output; return the plain output before it."""
        deadline = time.monotonic() + timeout
        while True:
            current = self._plain()
            index = current.find(text, self._pos)
            if index >= 0:
                before = current[self._pos:index]
                self._pos = index + len(text)
                return before
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{text!r} not seen within {timeout}s; output after the "
                                     f"last match:\n{current[self._pos:][-3000:]}")
            try:
                self._read(min(left, 0.2))
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                raise AssertionError(f"hermes exited before {text!r}; output after the last "
                                     f"match:\n{current[self._pos:][-3000:]}") from None

    def prompt(self, timeout: float = 10) -> str:
        """Wait for the next prompt; return the output before it."""
        return self.expect(PROMPT_MARKER, timeout)

    def send(self, line: str) -> None:
        """Type `line` and press Enter."""
        self.child.send(line + "\r")

    def exit_code(self, timeout: float = 10) -> int:
        """Wait for the process to end; return its exit status."""
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            try:
                self._read(0.2)
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                break
        self.child.close()
        return self.child.exitstatus

    def rest(self) -> str:
        """Plain output not consumed by expect() yet."""
        return self._plain()[self._pos:]


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
