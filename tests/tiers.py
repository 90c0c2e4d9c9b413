"""The two test tiers (a pytest plugin loaded by tests/conftest.py).

- fast: in-process logic tests (the scripted model, tools, the store); no process, no socket.
- wire: tests that start a process (the real CLI, a pty, a shell) or open a socket (the
  fake provider server, gateway servers, real HTTP clients).

`wire` is applied automatically to tests that use a wire fixture; modules that run the
CLI or a shell say `pytestmark = pytest.mark.wire`. A test left in the fast tier that
starts a process or connects/binds a socket fails at teardown, so the tiers stay honest.
`pytest -m "not wire"` runs the fast tier; plain `pytest` runs both.
`HERMES_TIER_REPORT=1` prints how many tests started a process / opened a socket.
"""

from __future__ import annotations

import os
import socket
import subprocess
from typing import Any

import pytest

WIRE_FIXTURES = frozenset({"fake_provider", "harness", "spawn_repl", "fake", "other_provider"})

_used: list[str] | None = None  # what the running test started, else None
_report: dict[str, set[str]] = {"process": set(), "socket": set()}


def _note(what: str) -> None:
    if _used is not None:
        _used.append(what)


def _wrap(owner: Any, name: str, label: str) -> None:
    real = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _note(label if label != "process" else f"process {args[1] if len(args) > 1 else ''}")
        return real(*args, **kwargs)

    setattr(owner, name, wrapper)


def pytest_configure(config: pytest.Config) -> None:
    _wrap(subprocess.Popen, "_execute_child", "process")
    _wrap(os, "fork", "fork")
    _wrap(os, "forkpty", "forkpty")
    _wrap(socket.socket, "connect", "socket connect")
    _wrap(socket.socket, "connect_ex", "socket connect")
    _wrap(socket.socket, "bind", "socket bind")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if WIRE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.wire)


@pytest.fixture(autouse=True)
def _tier_guard(request: pytest.FixtureRequest):
    global _used
    wire = request.node.get_closest_marker("wire") is not None
    reporting = bool(os.environ.get("HERMES_TIER_REPORT"))
    if wire and not reporting:
        yield
        return
    _used = []
    try:
        yield
        used = sorted(set(_used))
    finally:
        _used = None
    for what in used:
        kind = "socket" if what.startswith("socket") else "process"
        _report[kind].add(request.node.nodeid)
    if used and not wire:
        pytest.fail(f"a fast-tier test started {', '.join(used)}: use the scripted model "
                    "(tests/fakes/scripted.py) or mark it @pytest.mark.wire", pytrace=False)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not os.environ.get("HERMES_TIER_REPORT"):
        return
    process, sock = _report["process"], _report["socket"]
    terminalreporter.write_line(
        f"tier report: {len(process)} tests started a process, {len(sock)} opened a socket, "
        f"{len(process | sock)} either")
