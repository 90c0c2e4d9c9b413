"""`hermes gateway` with Telegram configured: the token from HERMES_HOME/.env, --no-api,
a missing token said in one line, /health naming the platforms (wire tier)."""

from __future__ import annotations

import signal
import subprocess

import httpx
import pytest
import yaml

from tests.fakes import Reply
from tests.fakes.telegram_api import TOKEN, FakeTelegram
from tests.helpers import KEY_A, OWNER, anthropic_env, hermes, hermes_command

pytestmark = pytest.mark.wire


def _config(home, tg_url: str, **extra) -> None:
    config = {"gateway": {"telegram": {"base_url": tg_url, "allowed_users": [OWNER], **extra}}}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def test_a_missing_token_is_one_clear_line(hermes_home, fake_provider):
    _config(hermes_home, "http://127.0.0.1:9/bot")
    env = anthropic_env(hermes_home, fake_provider)
    env["HERMES_API_KEY"] = "cli-test-key-123"
    result = hermes(["gateway", "--port", "0"], env, timeout=30)
    assert result.returncode == 1
    assert "TELEGRAM_BOT_TOKEN is not set" in result.stderr and ".env" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_wrong_groups_value_is_one_clear_line(hermes_home, fake_provider):
    _config(hermes_home, "http://127.0.0.1:9/bot", groups="sometimes")
    env = anthropic_env(hermes_home, fake_provider)
    env["TELEGRAM_BOT_TOKEN"] = TOKEN
    result = hermes(["gateway", "--no-api"], env, timeout=30)
    assert result.returncode == 1
    assert "gateway.telegram.groups" in result.stderr and "mention" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_wrong_token_is_one_clear_line(hermes_home, fake_provider):
    with FakeTelegram() as tg:
        _config(hermes_home, tg.base_url)
        env = anthropic_env(hermes_home, fake_provider)
        env["TELEGRAM_BOT_TOKEN"] = "999:wrong"
        result = hermes(["gateway", "--no-api"], env, timeout=30)
    assert result.returncode == 1
    assert "telegram: cannot connect" in result.stderr and "TELEGRAM_BOT_TOKEN" in result.stderr
    assert "Traceback" not in result.stderr


def test_no_api_runs_telegram_alone_with_the_token_from_dotenv(hermes_home, fake_provider):
    fake_provider.script(Reply("hello from the bot"))
    with FakeTelegram() as tg:
        _config(hermes_home, tg.base_url)
        (hermes_home / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\n", encoding="utf-8")
        proc = subprocess.Popen(hermes_command(["gateway", "--no-api"], env := anthropic_env(hermes_home, fake_provider)),
                                env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            line = proc.stdout.readline()
            assert "telegram connected (no HTTP API" in line, line + proc.stderr.read()
            tg.message(OWNER, OWNER, "hi")
            tg.wait_for(lambda: tg.shown(OWNER) == ["hello from the bot"], timeout=30)
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=30)
    assert code == 0


def test_health_shows_platforms_sessions_and_hit_rate(chats):
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "one")
    chats.turns(server, 1)
    chats.tg.message(OWNER, OWNER, "two")
    chats.turns(server, 2)
    health = httpx.get(server.base_url.removesuffix("/v1") + "/health", timeout=10,
                       headers={"authorization": f"Bearer {KEY_A}"}).json()
    telegram = health["platforms"]["telegram"]
    assert health["status"] == "ok" and telegram["connected"] is True
    assert telegram["sessions_cached"] == 1 and telegram["turns"] == 2
    assert 0 < telegram["hit_rate"] < 1
