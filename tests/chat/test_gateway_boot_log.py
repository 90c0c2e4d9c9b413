"""`hermes gateway` with Telegram, Slack and Discord at once says only hermes' own lines
on stderr: the libraries' INFO/WARNING chatter at boot (slack_bolt, discord.py,
uvicorn, httpx, python-telegram-bot) stays quiet unless --verbose (wire tier:
the real CLI against the three fakes)."""

from __future__ import annotations

import signal
import subprocess

import httpx
import pytest
import yaml

from tests.chat.discord_harness import OWNER as DC_OWNER
from tests.chat.slack_harness import OWNER as SLACK_OWNER
from tests.fakes.discord_api import TOKEN as DC_TOKEN
from tests.fakes.discord_api import FakeDiscord
from tests.fakes.slack_api import APP_TOKEN, FakeSlack
from tests.fakes.slack_rules import BOT_TOKEN
from tests.fakes.telegram_api import TOKEN, FakeTelegram
from tests.helpers import KEY_A, OWNER, anthropic_env, hermes_command, wait_until

pytestmark = pytest.mark.wire


def _boot(home, fake_provider, *flags: str) -> tuple[str, str]:
    """Start the gateway with all three platforms, wait until each is connected, stop
    it; its stdout and stderr."""
    with FakeTelegram() as tg, FakeSlack() as slack, FakeDiscord() as dc:
        config = {"gateway": {"api_keys": [KEY_A],
                              "telegram": {"base_url": tg.base_url, "allowed_users": [OWNER]},
                              "slack": {"base_url": slack.base_url,
                                        "allowed_users": [SLACK_OWNER]},
                              "discord": {"base_url": dc.base_url,
                                          "allowed_users": [DC_OWNER]}}}
        (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        env = anthropic_env(home, fake_provider)
        env.update(TELEGRAM_BOT_TOKEN=TOKEN, SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_APP_TOKEN=APP_TOKEN,
                   DISCORD_BOT_TOKEN=DC_TOKEN)
        proc = subprocess.Popen(hermes_command(["gateway", "--port", "0", *flags], env),
                                env=env, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            line = proc.stdout.readline()
            url = line.split("http://", 1)[1].split("/v1", 1)[0]

            def connected() -> bool:
                try:  # a loaded machine may answer late: that is "not yet", not a failure
                    health = httpx.get(f"http://{url}/health", timeout=10,
                                       headers={"authorization": f"Bearer {KEY_A}"}).json()
                except httpx.TimeoutException:
                    return False
                platforms = health.get("platforms", {})
                return len(platforms) == 3 and all(p["connected"] for p in platforms.values())

            wait_until(connected, timeout=60, what="three platforms connected")
        finally:
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
    return line + out, err


def test_boot_shows_hermes_lines_only(hermes_home, fake_provider):
    _, err = _boot(hermes_home, fake_provider)
    foreign = [line for line in err.splitlines() if line and not line.startswith("hermes")]
    assert foreign == [], err


def test_verbose_shows_the_libraries_lines_named(hermes_home, fake_provider):
    _, err = _boot(hermes_home, fake_provider, "--verbose")
    assert "slack_bolt.hermes: WARNING: As you gave `client` as well" in err, err
    assert "discord.gateway: INFO: " in err
    assert TOKEN not in err  # httpx's request lines would name Telegram's bot token
