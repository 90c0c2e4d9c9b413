"""Battery against the warm server's no-environment fix (wire tier: the real CLI and warm server):
a served run's key must not stay in the server's memory however it was given - in the
environment (the fix's own test), in HERMES_HOME/.env, in config.yaml, or typed into the
prompt on the command line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fakes.script import Reply
from tests.helpers import hermes, wait_until, warm_status
from tests.warm.procs import memory_holds

pytestmark = pytest.mark.wire


@pytest.mark.parametrize("way", ["dotenv", "config", "argv"])
def test_the_server_never_holds_a_key_given_another_way(env, runtime, fake_provider,
                                                        hermes_home: Path, tmp_path, way):
    canary = f"sk-ant-canary-{os.urandom(12).hex()}"
    fake_provider.script(Reply(text="keyed answer"))
    run_env = dict(env)
    prompt = "hi"
    if way == "dotenv":
        run_env.pop("ANTHROPIC_API_KEY")
        (hermes_home / ".env").write_text(f"ANTHROPIC_API_KEY={canary}\n", encoding="utf-8")
    elif way == "config":
        run_env.pop("ANTHROPIC_API_KEY")
        (hermes_home / "config.yaml").write_text(f"provider: anthropic\napi_key: {canary}\n", encoding="utf-8")
    else:
        prompt = f"remember {canary}"
    before = warm_status(runtime)["runs"]
    result = hermes(["-q", prompt], run_env, cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == "keyed answer", result.stderr
    status = wait_until(lambda: (s := warm_status(runtime))["running"] == 0 and s, timeout=30,
                        what="the run to end")
    assert status["runs"] == before + 1  # served by the server
    assert canary in str(fake_provider.requests[-1].headers) + str(fake_provider.requests[-1].body)
    assert not memory_holds(status["pid"], canary.encode())
