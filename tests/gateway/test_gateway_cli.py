"""`hermes gateway`: refuses to start without a client key; prints where it listens."""

from __future__ import annotations

import signal
import socket
import subprocess

import httpx
import openai
import pytest

from tests.fakes import Reply
from tests.helpers import anthropic_env, hermes, hermes_command


def test_refuses_to_start_without_a_key(hermes_home, fake_provider):
    result = hermes(["gateway", "--port", "0"], anthropic_env(hermes_home, fake_provider),
                    timeout=30)
    assert result.returncode == 1
    assert "refuses to start without an API key" in result.stderr
    assert "HERMES_API_KEY" in result.stderr and "gateway" in result.stderr


def test_starts_on_loopback_and_prints_where(hermes_home, fake_provider):
    env = anthropic_env(hermes_home, fake_provider)
    env["HERMES_API_KEY"] = "cli-test-key-123"
    proc = subprocess.Popen(hermes_command(["gateway", "--port", "0"], env), env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline()
        assert line.startswith("hermes gateway listening on http://127.0.0.1:"), line
        base = line.split()[4]
        health = httpx.get(base.removesuffix("/v1") + "/health", timeout=10)
        assert health.status_code == 200
        models = httpx.get(base + "/models", timeout=10,
                           headers={"authorization": "Bearer cli-test-key-123"})
        assert models.status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_a_taken_port_is_a_clear_error(hermes_home, fake_provider):
    env = anthropic_env(hermes_home, fake_provider)
    env["HERMES_API_KEY"] = "cli-test-key-123"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = hermes(["gateway", "--port", str(port)], env, timeout=30)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_short_key_in_the_environment_names_the_environment(hermes_home, fake_provider):
    env = anthropic_env(hermes_home, fake_provider)
    env["HERMES_API_KEY"] = "short"
    result = hermes(["gateway", "--port", "0"], env, timeout=30)
    assert result.returncode == 1
    assert "HERMES_API_KEY" in result.stderr and "config.yaml" not in result.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_stream_ends_the_stream_and_exits_cleanly(hermes_home, fake_provider, sig):
    fake_provider.script(Reply(text="word " * 80, chunks=80, delay=0.05))
    env = anthropic_env(hermes_home, fake_provider)
    env["HERMES_API_KEY"] = "cli-test-key-123"
    proc = subprocess.Popen(hermes_command(["gateway", "--port", "0"], env), env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        base = proc.stdout.readline().split()[4]
        client = openai.OpenAI(base_url=base, api_key="cli-test-key-123", max_retries=0)
        stream = client.chat.completions.create(
            model="hermes", stream=True, messages=[{"role": "user", "content": "talk"}])
        signalled = False
        with pytest.raises(openai.APIError, match="shutting down"):
            for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content and not signalled:
                    proc.send_signal(sig)  # once: a second Ctrl-C is uvicorn's force quit
                    signalled = True
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = proc.stderr.read()
    assert "Traceback" not in err and "ERROR" not in err, err
    assert "cli-test-key-123" not in err
