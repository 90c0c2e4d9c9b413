"""`hermes gateway --model/--provider/--base-url`, and the top-level `hermes -m X gateway`:
same precedence as the CLI (flag > config.yaml > environment); real CLI, real server."""

from __future__ import annotations

import subprocess

import openai
import yaml

from tests.helpers import anthropic_env, hermes, hermes_command, openai_env

KEY = "cli-test-key-123"


def _serve(args: list[str], env: dict[str, str]):
    """Start `hermes ARGS`, return (process, listening line)."""
    proc = subprocess.Popen(hermes_command([*args, "--port", "0", "--access-log", "off"], env), env=env,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc, proc.stdout.readline()


def _ask(line: str) -> None:
    base = line.split()[4]
    client = openai.OpenAI(base_url=base, api_key=KEY, max_retries=0, timeout=120)  # cold SDK import on a loaded machine
    client.chat.completions.create(model="hermes", messages=[{"role": "user", "content": "hi"}])


def _stop(proc) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _env(home, fake) -> dict[str, str]:
    env = {**anthropic_env(home, fake), **openai_env(home, fake)}
    env["HERMES_API_KEY"] = KEY
    return env


def test_top_level_model_and_gateway_provider_are_honoured(hermes_home, fake_provider):
    (hermes_home / "config.yaml").write_text(yaml.safe_dump(
        {"provider": "anthropic", "model": "claude-sonnet-5-5"}), encoding="utf-8")
    proc, line = _serve(["-m", "gpt-5-mini", "gateway", "--provider", "openai"],
                        _env(hermes_home, fake_provider))
    try:
        assert "(model gpt-5-mini, openai;" in line, line
        _ask(line)
        assert fake_provider.last.api == "openai"
        assert fake_provider.last.body["model"] == "gpt-5-mini"
    finally:
        _stop(proc)


def test_gateway_model_flag_wins_over_config_which_wins_over_the_default(hermes_home,
                                                                         fake_provider):
    (hermes_home / "config.yaml").write_text(yaml.safe_dump(
        {"provider": "anthropic", "model": "claude-sonnet-5-5"}), encoding="utf-8")
    env = _env(hermes_home, fake_provider)
    proc, line = _serve(["gateway", "--model", "claude-opus-4-5"], env)
    try:
        _ask(line)
        assert fake_provider.last.body["model"] == "claude-opus-4-5"
    finally:
        _stop(proc)
    proc, line = _serve(["gateway"], env)
    try:
        assert "(model claude-sonnet-5-5, anthropic;" in line, line
    finally:
        _stop(proc)


def test_conflicting_or_inapplicable_top_level_flags_are_one_clear_line(hermes_home,
                                                                       fake_provider):
    env = _env(hermes_home, fake_provider)
    both = hermes(["-m", "claude-opus-4-5", "gateway", "--model", "claude-sonnet-5-5"], env)
    assert both.returncode == 1 and "Traceback" not in both.stderr
    assert "two different models given: 'claude-opus-4-5' before `gateway`" in both.stderr
    same = hermes(["-q", "hi", "--yolo", "gateway"], env)
    assert same.returncode == 1 and "Traceback" not in same.stderr
    assert "-q, --yolo do not apply to `hermes gateway`" in same.stderr
    bad = hermes(["gateway", "--provider", "nope", "--port", "0"], env)
    assert bad.returncode == 1 and "unknown provider 'nope'" in bad.stderr
    assert "Traceback" not in bad.stderr
