"""`hermes setup`, `hermes doctor`, `hermes config` end to end: the real CLI against the
fake provider (its models list) and the fake chat platforms, over HTTP."""

from __future__ import annotations

import os
import stat

import pytest

from tests.fakes.discord_api import FakeDiscord
from tests.fakes.slack_api import FakeSlack
from tests.fakes.telegram_api import TOKEN as TELEGRAM_TOKEN
from tests.fakes.telegram_api import FakeTelegram
from tests.helpers import child_env, hermes

pytestmark = pytest.mark.wire  # every test here runs the real CLI


def _setup(home, fake, key="sk-ant-good-0001", *extra: str):
    return hermes(["setup", "--provider", "anthropic", "--model", "claude-sonnet-4-5",
                   "--api-key", key, "--base-url", fake.anthropic_base_url, *extra],
                  child_env(home))


def test_setup_then_doctor_is_healthy(fake_provider, hermes_home):
    (hermes_home / "config.yaml").write_text("# mine\nmax_tokens: 4000  # short answers\n")
    done = _setup(hermes_home, fake_provider)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sk-ant-good-0001" not in done.stdout + done.stderr  # never echoed
    env_file = hermes_home / ".env"
    assert "ANTHROPIC_API_KEY=sk-ant-good-0001" in env_file.read_text()
    assert stat.S_IMODE(os.stat(env_file).st_mode) == 0o600
    text = (hermes_home / "config.yaml").read_text()
    assert text.startswith("# mine\nmax_tokens: 4000  # short answers\n")  # kept
    assert "provider: anthropic" in text and "model: claude-sonnet-4-5" in text
    doctor = hermes(["doctor"], child_env(hermes_home))
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "key accepted (ANTHROPIC_API_KEY from " + str(env_file) in doctor.stdout
    assert "healthy" in doctor.stdout
    listed = [r for r in fake_provider.requests if r.path == "/v1/models"]
    assert listed and all("sk-ant-good-0001" in (r.headers.get("x-api-key", "")
                                                 + r.headers.get("authorization", ""))
                          for r in listed)


def test_a_rejected_key_fails_doctor_naming_it(fake_provider, hermes_home):
    fake_provider.rejected_keys.add("sk-ant-revoked")
    done = _setup(hermes_home, fake_provider, "sk-ant-revoked")
    assert done.returncode == 1  # setup ran the same check
    doctor = hermes(["doctor"], child_env(hermes_home))
    assert doctor.returncode == 1
    assert (f"key rejected (401): ANTHROPIC_API_KEY from {hermes_home / '.env'}"
            in doctor.stdout), doctor.stdout
    assert "fix:" in doctor.stdout and "sk-ant-revoked" not in doctor.stdout


@pytest.mark.parametrize("provider", ["openai", "gemini"])
def test_other_providers_key_checks(provider, fake_provider, hermes_home):
    url = fake_provider.openai_base_url if provider == "openai" else fake_provider.gemini_base_url
    var = "OPENAI_API_KEY" if provider == "openai" else "GEMINI_API_KEY"
    fake_provider.rejected_keys.add("bad-key-1")
    env = child_env(hermes_home, **{var: "bad-key-1"})
    (hermes_home / "config.yaml").write_text(f"provider: {provider}\nbase_url: {url}\n")
    doctor = hermes(["doctor"], env)
    assert doctor.returncode == 1 and f"{var} from the environment" in doctor.stdout, doctor.stdout
    good = hermes(["doctor"], child_env(hermes_home, **{var: "good-key-1"}))
    assert good.returncode == 0, good.stdout


def test_unreachable_base_url_and_chat_tokens(hermes_home):
    with FakeTelegram() as tg, FakeSlack() as slack, FakeDiscord() as discord:
        (hermes_home / "config.yaml").write_text(
            "provider: anthropic\nbase_url: http://127.0.0.1:9\n"
            f"gateway:\n  telegram: {{base_url: '{tg.base_url}'}}\n"
            f"  slack: {{base_url: '{slack.base_url}'}}\n"
            f"  discord: {{base_url: '{discord.base_url}'}}\n")
        env = child_env(hermes_home, ANTHROPIC_API_KEY="k", TELEGRAM_BOT_TOKEN=TELEGRAM_TOKEN,
                        SLACK_BOT_TOKEN="xoxb-wrong", SLACK_APP_TOKEN="xapp-1-x",
                        DISCORD_BOT_TOKEN="wrong")
        doctor = hermes(["doctor"], env)
    out = doctor.stdout
    assert doctor.returncode == 1
    assert "unreachable: http://127.0.0.1:9" in out
    assert "ok    chat telegram" in out
    assert "FAIL  chat slack" in out and "SLACK_BOT_TOKEN refused" in out and "invalid_auth" in out
    assert "FAIL  chat discord" in out and "DISCORD_BOT_TOKEN refused" in out


def test_config_set_get_unset_keep_comments(hermes_home):
    path = hermes_home / "config.yaml"
    path.write_text("# top\ncache:\n  ttl: 1h  # long pauses\nmodel: claude-sonnet-4-5\n")
    env = child_env(hermes_home, ANTHROPIC_API_KEY="k")
    assert hermes(["config", "set", "cache.keep_warm", "off"], env).returncode == 0
    assert hermes(["config", "set", "budget.session_usd", "2.5"], env).returncode == 0
    text = path.read_text()
    assert text.startswith("# top\ncache:\n  ttl: 1h  # long pauses\n  keep_warm: off\n")
    assert "budget:\n  session_usd: 2.5\n" in text
    got = hermes(["config", "get", "max_iterations"], env)
    assert got.stdout.strip() == "90    (default)"
    typo = hermes(["config", "set", "cache.keepwarm", "off"], env)
    assert typo.returncode == 1 and "did you mean `cache.keep_warm`?" in typo.stderr
    bad = hermes(["config", "set", "max_tokens", "lots"], env)
    assert bad.returncode == 1 and "must be a whole number" in bad.stderr
    assert "lots" not in path.read_text()  # refused: nothing written
    assert hermes(["config", "unset", "budget.session_usd"], env).returncode == 0
    assert "budget" not in path.read_text()


def test_an_mcp_server_that_cannot_start_fails_doctor(fake_provider, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text(
        f"provider: anthropic\nbase_url: {fake_provider.anthropic_base_url}\n"
        f"mcp_servers:\n  broken: {{command: {tmp_path / 'no-such-server'}}}\n")
    doctor = hermes(["doctor"], child_env(hermes_home, ANTHROPIC_API_KEY="k"))
    assert doctor.returncode == 1
    assert "FAIL  mcp broken" in doctor.stdout and "hermes mcp test broken" in doctor.stdout


def test_the_setup_questions_on_a_terminal(fake_provider, hermes_home, tmp_path):
    import io

    import pexpect

    from tests.helpers import HERMES

    child = pexpect.spawn(HERMES[0], [*HERMES[1:], "setup"], env=child_env(hermes_home),
                          cwd=str(tmp_path), encoding="utf-8", timeout=30)
    child.logfile_read = seen = io.StringIO()  # everything the terminal showed
    try:
        for prompt, answer in (("Provider", "openai"), ("Base URL", fake_provider.openai_base_url),
                               ("API key", "sk-typed-secret"), ("Model", "gpt-5"),
                               ("Network", "off"), ("Chat platform", "")):
            child.expect(prompt)
            child.sendline(answer)
        child.expect("key accepted")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert "API key" in seen.getvalue() and "sk-typed-secret" not in seen.getvalue()  # getpass
    text = (hermes_home / "config.yaml").read_text()
    assert "provider: openai" in text and "network: off" in text and "model: gpt-5" in text
    assert "OPENAI_API_KEY=sk-typed-secret" in (hermes_home / ".env").read_text()
