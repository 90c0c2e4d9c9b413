"""The host's home is empty to the tools except an allowlist (agent/sandbox/home.py).

A fake $HOME holds the workspace and, beside it, files no list of secret names knew
(~/.npmrc, ~/.pypirc, the gcloud refresh token, the shell history): read_file,
search_files and `cat` in the terminal see none of them, while ~/.gitconfig, a cache
(read-only) and `sandbox.home_allow` entries stay visible. The file-tool tests are in
the fast tier (no process); the terminal's are wire.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent.errors import ConfigError, ToolError
from agent.sandbox.backend import backend
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.read_file import read_file
from agent.tools.registry import ToolContext, ToolState
from agent.tools.search_files import search_files
from frontend.config.sandbox_setup import sandbox_settings
from frontend.config.settings import Settings

SECRETS = {".npmrc": "//registry.npmjs.org/:_authToken=FAKE-NPM-TOKEN-11",
           ".pypirc": "[pypi]\npassword = FAKE-PYPI-TOKEN-22",
           ".config/gcloud/application_default_credentials.json": '{"refresh_token": "FAKE-GCLOUD-33"}',
           ".bash_history": "export DB_PASSWORD=FAKE-HISTORY-44"}
MARKS = ("FAKE-NPM", "FAKE-PYPI", "FAKE-GCLOUD", "FAKE-HISTORY")
needs_sandbox = pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake home with the workspace in it (~/project), secrets, git config and a cache."""
    home = tmp_path / "home"
    for name, text in {**SECRETS, ".gitconfig": "[user]\n name = GIT-NAME-OK\n",
                       ".cache/pip/wheel.txt": "CACHE-OK\n", ".config/nvim/init.vim": "NVIM-OK\n",
                       "project/main.py": "print('WORK-OK')\n"}.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text + "\n")
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    return home


def _ctx(home: Path, hh: Path, **settings: object) -> ToolContext:
    return ToolContext(session_id="s", home=hh, cwd=home / "project", yolo=True,
                       sandbox=SandboxSettings(**settings), state=ToolState())  # type: ignore[arg-type]


@pytest.mark.parametrize("name", list(SECRETS))
def test_read_file_refuses_the_home_outside_the_allowlist(home: Path, hermes_home: Path, name: str) -> None:
    for path in (f"~/{name}", f"../{name}", str(home / name)):
        with pytest.raises(ToolError, match="outside what tools see"):
            read_file({"path": path}, _ctx(home, hermes_home))


@pytest.mark.wire  # search_files runs ripgrep where it is installed (CI installs it)
def test_search_files_finds_nothing_outside_the_allowlist(home: Path, hermes_home: Path) -> None:
    ctx = _ctx(home, hermes_home)
    for pattern in MARKS:
        found = search_files({"pattern": pattern + ".*", "path": "~"}, ctx)
        assert found.startswith("No matches"), found
    names = search_files({"pattern": "*", "path": "~", "target": "files"}, ctx)
    assert ".npmrc" not in names and ".bash_history" not in names and "main.py" in names
    with pytest.raises(ToolError, match="outside what tools see"):
        search_files({"pattern": "FAKE", "path": "~/.config/gcloud"}, ctx)


def test_the_allowlist_and_home_allow_stay_readable(home: Path, hermes_home: Path) -> None:
    ctx = _ctx(home, hermes_home)
    assert "GIT-NAME-OK" in read_file({"path": "~/.gitconfig"}, ctx)
    assert "CACHE-OK" in read_file({"path": "~/.cache/pip/wheel.txt"}, ctx)
    assert "WORK-OK" in read_file({"path": "main.py"}, ctx)
    with pytest.raises(ToolError, match="home_allow"):
        read_file({"path": "~/.config/nvim/init.vim"}, ctx)
    allowed = _ctx(home, hermes_home, home_allow=("~/.config/nvim",))
    assert "NVIM-OK" in read_file({"path": "~/.config/nvim/init.vim"}, allowed)
    off = _ctx(home, hermes_home, enabled=False)  # --no-sandbox: the user's choice, as before
    assert "FAKE-NPM" in read_file({"path": "~/.npmrc"}, off)


def _settings(text: str, source: str = "cli") -> SandboxSettings:
    return sandbox_settings(Settings(home=Path("/nonexistent"), raw=yaml.safe_load(text)), source=source)


def test_home_allow_is_checked_and_the_gateway_ignores_it(home: Path) -> None:
    assert _settings("sandbox: {home_allow: [~/.m2]}").home_allow == ("~/.m2",)
    for bad in ("/etc", "~/../other", "relative/dir"):
        with pytest.raises(ConfigError, match="`sandbox.home_allow` entries must be paths inside your home"):
            _settings(f"sandbox: {{home_allow: ['{bad}']}}")
    with pytest.raises(ConfigError, match="`sandbox.home_allow` must be a list"):
        _settings("sandbox: {home_allow: ~/.m2}")
    tenant = _settings("sandbox: {home_allow: [~/.m2]}", source="gateway")
    assert tenant.home_allow == () and not tenant.home_defaults


@pytest.mark.wire
@needs_sandbox
def test_the_terminal_sees_an_empty_home_but_the_allowlist(home: Path, hermes_home: Path) -> None:
    ctx = _ctx(home, hermes_home, network="off")
    try:
        out = terminal.terminal({"command": "cat ~/.npmrc ~/.pypirc ~/.bash_history "
                                 "~/.config/gcloud/application_default_credentials.json; "
                                 "grep -r FAKE ~ /proc/self/cwd/..; cat ~/.gitconfig "
                                 "~/.cache/pip/wheel.txt main.py; echo x > ~/.cache/pip/poison; "
                                 "echo made > made.txt", "timeout": 20}, ctx)
        listing = terminal.terminal({"command": "ls -A ~", "timeout": 20}, ctx)
    finally:
        terminal.release_processes(ctx.state)
        ctx.state.sandbox.close()  # type: ignore[union-attr]
    assert not any(mark in out for mark in MARKS), out
    assert "GIT-NAME-OK" in out and "CACHE-OK" in out and "WORK-OK" in out
    assert ".npmrc" not in listing and ".bash_history" not in listing and "project" in listing
    assert not (home / ".cache/pip/poison").exists()  # caches are read-only: nothing to poison
    assert (home / "project/made.txt").read_text() == "made\n"


def test_plan_mode_keeps_the_workspace_in_the_home_view(home: Path, hermes_home: Path) -> None:
    from agent.permissions.plan import readonly_sandbox

    box = readonly_sandbox(_ctx(home, hermes_home))
    assert box.policy.writable == ()  # read-only, yet the workspace is still seen
    assert not box.policy.is_hidden(home / "project" / "main.py")
    assert box.policy.is_hidden(home / ".npmrc")
