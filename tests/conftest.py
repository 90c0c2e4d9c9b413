"""Suite-wide fixtures: an isolated HERMES_HOME, no provider env leaking in, and a
guard that makes any connection beyond 127.0.0.1 fail loudly."""

from __future__ import annotations

import ipaddress
import signal
import socket
from pathlib import Path

import pytest

from tests.helpers import PROVIDER_ENV

_WARM_BEFORE = pytest.StashKey[set[Path]]()

pytest_plugins = ["tests.fakes.fixtures", "tests.tiers"]


def _is_local(address: object) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and the like
    host = str(address[0])
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_local(address):
        raise RuntimeError(f"test tried to reach the network: {address!r} (only 127.0.0.1 allowed)")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(address):
        raise RuntimeError(f"test tried to reach the network: {address!r} (only 127.0.0.1 allowed)")
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    """A suite started in the background (`nohup`, `&`, some CI runners) inherits SIGINT
    ignored, and so would every `hermes` it starts: the Ctrl-C tests need what a
    terminal's foreground job has, the default."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        from tests import prefork  # the xdist controller: one fork server for all workers

        config.add_cleanup(prefork.share_across_workers())


def _warm_sockets() -> set[Path]:
    """Warm start sockets in the user's own folders (not tests/warm/'s private ones)."""
    import os

    bases = {"/tmp", os.environ.get("XDG_RUNTIME_DIR") or "/tmp"}  # as place.folder() picks
    return {sock for base in bases
            for sock in Path(base, f"hermes-warm-{os.getuid()}").glob("*.sock")}


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_WARM_BEFORE] = _warm_sockets()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A test that runs `hermes` with the warm start on outside tests/warm/ (an env
    without HERMES_WARM=0) leaves a server running for an hour: stopped here, and the
    run fails saying so (the xdist controller checks once, after every worker)."""
    if hasattr(session.config, "workerinput"):
        return
    from hermes_cli.warm.protocol import ask

    root = str(Path(__file__).resolve().parents[1])
    left = [sock for sock in _warm_sockets() - session.config.stash.get(_WARM_BEFORE, set())
            if str((ask(sock, "status") or {}).get("install", "")).endswith(f"|{root}")]
    for sock in left:  # only this checkout's: a developer's own hermes is left alone
        ask(sock, "stop")
    if left:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        print(f"\nFAILED: a test left warm start servers running ({', '.join(map(str, left))}):"
              " run hermes with HERMES_WARM=0 (tests/helpers.child_env) outside tests/warm/")


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """`-n N` without `--dist`: xdist's work-stealing scheduler instead of its default
    fixed chunks. A worker whose queue runs dry takes half of the longest one, so the
    run does not end with one worker on a long queue while the others idle (~30 s of
    such a tail on 2 cores with the default). An explicit `--dist` is obeyed."""
    import os

    given = [*config.invocation_params.args, *os.environ.get("PYTEST_ADDOPTS", "").split()]
    if config.getvalue("dist") != "load" or any(str(a).startswith("--dist") for a in given):
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)  # type: ignore[arg-type]


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own HERMES_HOME and no provider settings from the machine."""
    for key in PROVIDER_ENV:
        monkeypatch.delenv(key, raising=False)
    for key in ("COLUMNS", "LINES"):  # set in pytest-xdist workers; a pty has its own size
        monkeypatch.delenv(key, raising=False)
    home = tmp_path / "hermes_home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("NO_COLOR", "1")
    # no warm start server (hermes_cli/launch/) outliving a test: tests/warm/ turn it on
    monkeypatch.setenv("HERMES_WARM", "0")
    return home


@pytest.fixture
def hermes_home(_isolated_env: Path) -> Path:
    return _isolated_env


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL server for the test session (tests/fakes/postgres.py). Its
    binaries missing: the test fails under CI=true, else it is skipped."""
    import os

    from tests.fakes.postgres import PostgresMissing, PostgresServer

    try:
        server = PostgresServer().start()
    except PostgresMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{exc} (CI must have them: .ci/run installs Debian's postgresql)")
        pytest.skip(f"{exc}: skipped")
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.wire)])
def database_url(request: pytest.FixtureRequest) -> str | None:
    """None (the store in SQLite) or the URL of a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("postgres_server").new_database()


@pytest.fixture
def any_store(tmp_path: Path, database_url: str | None):
    """A SessionStore on `database_url`'s backend (SQLite in tmp_path/home, or PostgreSQL)."""
    from memory import open_store

    store = open_store(tmp_path / "home", database_url)
    yield store
    store.close()
