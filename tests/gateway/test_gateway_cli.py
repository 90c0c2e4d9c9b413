"""`hermes gateway`: refuses to start without a client key; prints where it listens."""

from __future__ import annotations

import subprocess

import httpx

from tests.helpers import HERMES, anthropic_env, hermes


def test_refuses_to_start_without_a_key(hermes_home, fake_provider):
    result = hermes(["gateway", "--port", "0"], anthropic_env(hermes_home, fake_provider),
                    timeout=30)
    assert result.returncode == 1
    assert "refuses to start without an API key" in result.stderr
    assert "HERMES_API_KEY" in result.stderr and "gateway" in result.stderr


def test_starts_on_loopback_and_prints_where(hermes_home, fake_provider):
    env = anthropic_env(hermes_home, fake_provider)
    env["HERMES_API_KEY"] = "cli-test-key-123"
    proc = subprocess.Popen([*HERMES, "gateway", "--port", "0"], env=env, text=True,
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
