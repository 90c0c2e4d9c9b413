"""Where a hook runs: in the tool sandbox, unless its entry says `sandbox: host`.

A hook that runs the project's code (`python3 -m unittest` as a Stop hook) runs what the
model wrote; on the host that code could read `~/.ssh`. So a hook runs confined as the
terminal's commands are (agent/sandbox/): the workspace writable, the rest of the system
read-only, the home empty but for its allowlist, hermes' secrets hidden, the session's
network setting - plus, read-only, the files the hook's command line names: its script
(`~/bin/check.py`), the programs it calls by name when they live in the home, each
script's interpreter (its `#!` line) and that interpreter's virtualenv. Nothing else of
the home. A hook that must reach the host (a desktop notification, a log in the home)
says `sandbox: host` in its entry; the trust question and /permissions list those.

One sandbox per agent (`HookBox`), built from the session's sandbox settings on the
first sandboxed hook and kept until the agent is closed: its namespaces start once
(~50-70 ms), each hook then pays what a terminal command pays to enter them. With the
sandbox off (`--no-sandbox`) or no backend on this machine, hooks run on the host as
before (the start notice already says the tools are unconfined).
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent.hooks.config import Command
from agent.hooks.runner import Place
from agent.sandbox.backend import Sandbox, make_sandbox
from agent.sandbox.policy import SandboxSettings


def named_files(command: str, env: dict[str, str], cwd: Path) -> list[str]:
    """The files `command` names that it needs to read: words that are paths (`~` and
    $HOME expanded), programs found on PATH, each one's `#!` interpreter and that
    interpreter's virtualenv; as written and resolved."""
    home = env.get("HOME") or os.path.expanduser("~")
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    found: list[str] = []
    for word in words:
        text = word.replace("${HOME}", home).replace("$HOME", home)
        if text == "~" or text.startswith("~/"):
            text = home + text[1:]
        if "/" in text:
            path = text if os.path.isabs(text) else str(cwd / text)
        else:
            path = shutil.which(text, path=env.get("PATH", os.defpath)) or ""
        if path and os.path.exists(path):
            _add(found, path)
    for path in list(found):
        for extra in (*_interpreter(path, env), *_venv(path)):
            _add(found, extra)
    return found


def _venv(program: str) -> list[str]:
    """The virtualenv a program lives in (its pyvenv.cfg beside bin/): a venv's python
    finds its packages only through it."""
    venv = os.path.dirname(os.path.dirname(os.path.abspath(program)))
    return [venv] if os.path.isfile(os.path.join(venv, "pyvenv.cfg")) else []


def _add(found: list[str], path: str) -> None:
    for form in (os.path.abspath(path), os.path.realpath(path)):
        if form not in found:
            found.append(form)


def _interpreter(path: str, env: dict[str, str]) -> list[str]:
    """A script's `#!` interpreter (through `env NAME`) and, for a virtualenv's python,
    the virtualenv (its pyvenv.cfg beside bin/)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(256)
    except OSError:
        return []
    if not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if words and os.path.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")][:1]
        words = [shutil.which(words[0], path=env.get("PATH", os.defpath)) or ""] if words else []
    out: list[str] = []
    for program in words[:1]:
        if program and os.path.exists(program):
            out += [program, *_venv(program)]
    return out


@dataclass
class HookBox:
    """The sandbox an agent's hooks run in (module docstring); `launch` is None-yielding
    for a `sandbox: host` hook and when there is no active sandbox."""

    settings: SandboxSettings | None
    home: Path  # HERMES_HOME
    cwd: Path
    box: Sandbox | None = None
    shown: tuple[str, ...] = field(default_factory=tuple)

    def prepare(self, commands: Iterable[Command], env: dict[str, str]) -> Sandbox | None:
        """The sandbox for these hooks (None: they run on the host). Built once, showing
        what every sandboxed hook of the agent names, so one set of namespaces serves all."""
        if self.settings is not None and not self.settings.enabled:
            return None
        if self.box is None:
            names: list[str] = []
            for command in commands:
                if not command.host:
                    names += named_files(command.command, env, self.cwd)
            settings = self.settings or SandboxSettings()
            self.shown = tuple(dict.fromkeys(names))
            self.box = make_sandbox(replace(settings, shown=self.shown), self.home, self.cwd)
        return self.box if self.box.active else None

    @contextlib.contextmanager
    def launch(self, command: Command, box: Sandbox | None) -> Iterator[Callable[[], None] | None]:
        if command.host or box is None:
            yield None
            return
        with box.launch(self.cwd) as confine:
            yield confine

    def where(self, command: Command, box: Sandbox | None) -> Place:
        """What the runner needs to start `command` here, and to start over."""
        return Place(lambda: self.launch(command, box), box.close if box is not None else _nothing)

    def environment(self, box: Sandbox | None, env: dict[str, str]) -> dict[str, str]:
        """`env` plus what the sandbox sets (TMPDIR, the proxy for `network: public`)."""
        if box is None:
            return env
        inside = box.environment(env)
        return {**env, **{k: v for k, v in inside.items() if k == "TMPDIR" or k not in env}}

    def close(self) -> None:
        if self.box is not None:
            self.box.close()


def _nothing() -> None:
    return None
