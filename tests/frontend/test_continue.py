"""`hermes -c` continues the latest REPL session of the current directory;
one-shot `-q -c` its own or a REPL one of the directory; `--continue-any` the
latest of any kind. Fast tier for the choice, the real CLI for the flags."""

from __future__ import annotations

import pytest

from agent.errors import ConfigError
from frontend.factory import resolve_resume
from memory.store import SessionStore
from tests.helpers import anthropic_env, hermes


def _sessions(store: SessionStore, here: str, elsewhere: str) -> None:
    for sid, source, cwd in (("repl-here", "cli", here), ("oneshot-here", "oneshot", here),
                             ("repl-elsewhere", "cli", elsewhere), ("gw", "gateway", here)):
        store.create_session(sid, model="m", provider="anthropic", system_prompt="s",
                             source=source, cwd=cwd)


def test_continue_picks_by_front_end_and_directory(hermes_home, tmp_path, monkeypatch):
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    store = SessionStore(hermes_home / "state.db")
    _sessions(store, str(here), str(elsewhere))
    monkeypatch.chdir(here)
    assert resolve_resume(store, None, True, "cli") == "repl-here"
    assert resolve_resume(store, None, True, "oneshot") == "oneshot-here"
    assert resolve_resume(store, None, True, "cli", any_kind=True) == "gw"
    monkeypatch.chdir(elsewhere)
    assert resolve_resume(store, None, True, "cli") == "repl-elsewhere"
    assert resolve_resume(store, None, True, "oneshot") == "repl-elsewhere"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        resolve_resume(store, None, True, "cli")
    assert caught.value.message == f"no REPL session of this directory ({tmp_path}) to continue"
    assert "--continue-any" in caught.value.hint


def test_the_flags_on_the_real_cli(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    here, other = tmp_path / "here", tmp_path / "other"
    here.mkdir()
    other.mkdir()
    first = hermes(["-q", "first", "--json"], env, cwd=here)
    assert first.returncode == 0, first.stderr
    missing = hermes(["-c", "-q", "more"], env, cwd=other)
    assert missing.returncode != 0
    assert "no session of this directory" in missing.stderr and "Traceback" not in missing.stderr
    anywhere = hermes(["--continue-any", "-q", "more", "--json"], env, cwd=other)
    assert anywhere.returncode == 0, anywhere.stderr
    store = SessionStore(hermes_home / "state.db")
    (row,) = store.list_sessions()
    assert row["source"] == "oneshot" and row["cwd"] == str(here)
    assert [m["content"] for m in store.messages(row["id"]) if m["role"] == "user"] == \
        ["first", "more"]
