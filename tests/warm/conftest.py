"""The warm start's test server: one per xdist worker, started the way users get one
(a cold `hermes -q` with the warm start on), in a private runtime folder, stopped with
`hermes warm stop` at the end."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.script import Reply
from tests.fakes.server import FakeProvider
from tests.helpers import HERMES, anthropic_env, hermes, wait_until, warm_env


@pytest.fixture(scope="session")
def runtime(tmp_path_factory) -> Iterator[Path]:
    """A private runtime folder with a server started the way users get one: by a cold
    `hermes -q` (session-scoped: a server imports every SDK once, ~3 s of CPU)."""
    folder = tmp_path_factory.mktemp("runtime")
    home = tmp_path_factory.mktemp("home")
    with FakeProvider(min_cache_tokens=64) as fake:
        fake.script(Reply(text="cold answer"))
        env = warm_env(anthropic_env(home, fake), folder)
        cold = hermes(["-q", "hi"], env)
        assert cold.returncode == 0 and cold.stdout.strip() == "cold answer", cold.stderr
        wait_until(lambda: list(folder.glob("hermes-warm-*/*.sock")), timeout=60,
                   what="the warm server a cold run starts")
    yield folder
    env = {**os.environ, "XDG_RUNTIME_DIR": str(folder)}
    env.pop("HERMES_WARM", None)
    socket = next(folder.glob("hermes-warm-*/*.sock"), None)
    subprocess.run([*HERMES, "warm", "stop"], env=env, capture_output=True, timeout=30)
    if socket is not None:
        wait_until(lambda: not socket.exists(), timeout=30, what="the server to stop")


@pytest.fixture
def env(runtime, fake_provider, hermes_home) -> dict[str, str]:
    return warm_env(anthropic_env(hermes_home, fake_provider), runtime)
