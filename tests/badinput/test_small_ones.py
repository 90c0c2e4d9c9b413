"""Small bad inputs: credentials in URLs, control sequences, read-only HERMES_HOME,
implausible context windows."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from agent.providers._errors import SdkContext
from frontend.config.settings import load_settings
from hermes_cli.render.terminal_text import for_terminal, strip_controls
from memory.redact import redact_url
from memory.store import SessionStore
from tests.helpers import HERMES, child_env, hermes


@pytest.mark.parametrize(("url", "expected"), [
    ("https://user:s3cret@proxy.example:8443/v1", "https://***@proxy.example:8443/v1"),
    ("https://s3cret@proxy.example/v1", "https://***@proxy.example/v1"),
    ("https://h/v1?api_key=s3cret&region=eu", "https://h/v1?api_key=***&region=eu"),
    ("https://h/v1?token=s3cret", "https://h/v1?token=***"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("http://[::1:s3cret@x", "http://***@x"),
])
def test_redact_url(url, expected):
    assert redact_url(url) == expected


def test_base_url_password_is_never_stored_or_shown(tmp_path):
    ctx = SdkContext("Anthropic", "https://u:s3cret@h/v1", "ANTHROPIC_API_KEY")
    assert "s3cret" not in ctx.base_url
    with SessionStore(tmp_path / "state.db") as store:
        store.create_session("s", model="m", provider="anthropic", system_prompt="x",
                             base_url="https://u:s3cret@h/v1")
        store.update_session("s", base_url="https://h/v1?key=s3cret")
        assert "s3cret" not in json.dumps(store.export_session("s"))


class _Tty:
    def isatty(self) -> bool:
        return True


class _Pipe:
    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("raw", [
    "\x1b[31mred\x1b[0m", "\x1b]0;owned title\x07", "\x1b]8;;http://x\x1b\\link", "\x1bPq#0\x1b\\",
    "\x9b2J", "bell\x07", "back\x08space", "\x1bc", "\x1b[?1049h", "nul\x00",
])
def test_control_sequences_are_stripped_on_a_terminal(raw):
    out = for_terminal(f"a{raw}b\n\tc", _Tty())
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "\x00" not in out
    assert out.startswith("a") and out.endswith("b\n\tc")
    assert for_terminal(raw, _Pipe()) == raw


def test_strip_controls_keeps_plain_text():
    assert strip_controls("plain ☕ text [/] [bold]") == "plain ☕ text [/] [bold]"


@pytest.mark.parametrize(("windows", "warned"), [
    ("{m: 10}", True), ("{m: 128}", True), ("{m: 999999999}", True), ("{m: 128000}", False),
    ("{m: 8192, n: 200000}", False),
])
def test_implausible_context_windows_warn(windows, warned, hermes_home):
    (hermes_home / "config.yaml").write_text(f"context_windows: {windows}\n")
    found = [w for w in load_settings(hermes_home).warnings if "which no model has" in w]
    assert bool(found) == warned


def _can_mount() -> bool:
    return bool(shutil.which("unshare")) and hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.mark.skipif(not _can_mount(), reason="needs root and unshare for a read-only mount")
def test_read_only_home_still_lists_and_shows(fake_provider, hermes_home, tmp_path):
    from tests.helpers import anthropic_env

    result = hermes(["-q", "hello \x1b]0;pwned\x07 there"], anthropic_env(hermes_home, fake_provider),
                    cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with SessionStore(hermes_home / "state.db") as store:
        sid = store.latest_session()["id"]
    script = (f"mount --bind -o ro {hermes_home} {hermes_home} && "
              f"{' '.join(HERMES)} sessions list && {' '.join(HERMES)} sessions show {sid} && "
              f"{' '.join(HERMES)} sessions export {sid} && "
              f"{' '.join(HERMES)} sessions delete -y {sid}")
    run = subprocess.run(["unshare", "-m", "sh", "-c", script], env=child_env(hermes_home),
                         capture_output=True, text=True, timeout=60)
    assert sid in run.stdout and "hello" in run.stdout
    assert "Traceback" not in run.stderr
    assert "cannot write the session store" in run.stderr  # delete: a clear line
    assert run.returncode == 1
