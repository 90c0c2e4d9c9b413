"""The warm start's decisions, in-process: which runs it serves, where its socket may
live, and what makes a server stale (hermes_cli/warm/place.py, hermes_cli/launch/argv.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hermes_cli.launch.argv import wanted
from hermes_cli.warm import place, settings


@pytest.fixture(autouse=True)
def _own_home(tmp_path, monkeypatch):
    """settings.read() looks at HERMES_HOME (else ~/.hermes): never the user's own."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))


@pytest.mark.parametrize("argv", [[], ["-c"], ["-m", "claude-opus-5", "--plan"],
                                  ["-q", "hi"], ["--query", "hi"], ["--query=hi"],
                                  ["-m", "claude-sonnet-5", "-q", "hi", "--json"], ["acp"]])
def test_the_repl_one_shot_runs_and_the_acp_server_are_served_warm(argv):
    assert wanted(argv, {})


@pytest.mark.parametrize("argv", [["sessions", "list"], ["gateway"], ["warm", "status"],
                                  ["--", "-q"], ["cron", "add", "acp"], ["--help"],
                                  ["-q", "hi", "-h"], ["--version"], ["-m", "models"]])
def test_help_and_the_other_commands_start_cold_as_before(argv):
    assert not wanted(argv, {})


def test_the_cold_commands_are_the_clis_subcommands_but_acp():
    import typer.main

    from hermes_cli.app import app
    from hermes_cli.launch.argv import SUBCOMMANDS

    assert set(typer.main.get_command(app).commands) == SUBCOMMANDS | {"acp"}


@pytest.mark.parametrize("value", ["0", "off", "false", "NO", " 0 "])
def test_hermes_warm_0_turns_it_off(value):
    assert not wanted(["-q", "hi"], {"HERMES_WARM": value})
    assert wanted(["-q", "hi"], {"HERMES_WARM": "1"})


def test_the_socket_folder_is_made_private(tmp_path):
    where = place.folder({"XDG_RUNTIME_DIR": str(tmp_path)})
    assert where == tmp_path / f"hermes-warm-{os.getuid()}"
    assert (os.stat(where).st_mode & 0o777) == 0o700


def test_a_folder_others_can_enter_or_a_link_is_never_used(tmp_path):
    env = {"XDG_RUNTIME_DIR": str(tmp_path)}
    shared = tmp_path / f"hermes-warm-{os.getuid()}"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    assert place.folder(env) is None  # someone else could have put a socket there
    shared.rmdir()
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    shared.symlink_to(tmp_path / "elsewhere")
    assert place.folder(env) is None
    assert place.socket_path(env) is None


def _tree(root: Path) -> None:
    for name in ("agent/a.py", "agent/sub/b.py", "hermes_cli/c.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x = 1\n")


def test_an_edited_added_or_removed_module_makes_a_new_fingerprint(tmp_path):
    _tree(tmp_path)
    first = place._sources(tmp_path)
    assert len(first) == 3
    (tmp_path / "agent/__pycache__").mkdir()
    (tmp_path / "agent/__pycache__/a.cpython-311.pyc").write_bytes(b"")
    assert place._sources(tmp_path) == first  # compiled files are not sources
    os.utime(tmp_path / "agent/sub/b.py", ns=(1, 1))
    edited = place._sources(tmp_path)
    assert edited != first
    (tmp_path / "agent/new.py").write_text("")
    assert len(place._sources(tmp_path)) == 4
    (tmp_path / "agent/new.py").unlink()
    assert place._sources(tmp_path) == edited


def test_interpreter_settings_change_the_socket_and_api_keys_and_the_locale_do_not():
    """Two servers under different locales stopped each other in turn: one
    installation has one server whatever LANG/LC_* say; each run takes its own locale."""
    base = {"LANG": "C.UTF-8", "PYTHONPATH": "/x"}
    same = place.fingerprint({**base, "ANTHROPIC_API_KEY": "k", "HERMES_HOME": "/h"})
    assert same == place.fingerprint(base)
    assert place.fingerprint({**base, "LANG": "de_DE.UTF-8", "LC_ALL": "POSIX"}) == same
    assert place.fingerprint({**base, "LC_CTYPE": "en_US.UTF-8"}) == same
    assert place.fingerprint({**base, "PYTHONPATH": "/y"}) != same


def test_a_folder_too_deep_for_a_unix_socket_means_a_cold_start(tmp_path):
    deep = tmp_path / ("d" * 90)
    deep.mkdir()
    env = {"XDG_RUNTIME_DIR": str(deep)}
    assert place.folder(env) is not None
    assert place.socket_path(env) is None


def _home(tmp_path: Path, dotenv: str = "", config: str = "") -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    if dotenv:
        (home / ".env").write_text(dotenv)
    if config:
        (home / "config.yaml").write_text(config)
    return {"HERMES_HOME": str(home)}


@pytest.mark.parametrize("dotenv", ["HERMES_WARM=0\n", "export HERMES_WARM='off'  # no\n"])
def test_hermes_warm_0_in_the_env_file_turns_it_off(tmp_path, dotenv):
    env = _home(tmp_path, dotenv=f"ANTHROPIC_API_KEY=x\n{dotenv}")
    assert not wanted(["-q", "hi"], env)
    assert wanted(["-q", "hi"], {**env, "HERMES_WARM": "1"})  # the shell's value wins


@pytest.mark.parametrize("line", ["warm: false", "warm: off  # too heavy", "warm: 'no'"])
def test_warm_false_in_config_yaml_turns_it_off(tmp_path, line):
    env = _home(tmp_path, config=f"model: claude-sonnet-5\n{line}\ncache:\n  ttl: 5m\n")
    assert not wanted(["-q", "hi"], env)
    assert wanted(["-q", "hi"], _home(tmp_path / "x", config="model: m\nwarm: true\n"))


def test_an_idle_server_exits_after_15_minutes_unless_configured(tmp_path):
    assert settings.read(_home(tmp_path)).idle_seconds == 15 * 60
    env = _home(tmp_path, config="warm_idle_minutes: 2.5\n")
    assert settings.read(env).idle_seconds == 150
    assert settings.read({**env, "HERMES_WARM_IDLE": "7"}).idle_seconds == 7


def test_a_bad_warm_setting_is_one_clear_line(tmp_path):
    found = settings.read(_home(tmp_path, config="warm: maybe\nwarm_idle_minutes: soon\n"))
    assert found.on and found.idle_seconds == 15 * 60
    assert len(found.problems) == 2
    assert "`warm: maybe` is not true or false" in found.problems[0]
    assert "`warm_idle_minutes: soon`" in found.problems[1] and "not a number" in found.problems[1]


def test_the_config_loader_knows_the_warm_settings():
    from frontend.config.schema import unknown_keys

    assert unknown_keys({"warm": False, "warm_idle_minutes": 5}) == []


def test_the_help_names_the_repl_and_what_stop_stops():
    from typer.testing import CliRunner

    from hermes_cli.app import app

    shown = " ".join(CliRunner().invoke(app, ["warm", "--help"], terminal_width=200).output.split())
    assert "the REPL, `hermes -q` and `hermes acp` are forked" in shown
    stop = " ".join(CliRunner().invoke(app, ["warm", "stop", "--help"],
                                       terminal_width=200).output.split())
    assert "this installation's" in stop and "--all" in stop
    assert "the next `hermes -q` starts" not in stop
