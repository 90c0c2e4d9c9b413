"""Shared test helpers (the one module tests import helpers from): agents on the fake
server or on the in-process scripted model, waiting with a deadline, the real `hermes`
command in a subprocess, and the gateway harness' small helpers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

PROVIDER_ENV = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY",
    "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "HERMES_API_KEY",
)
HERMES = [sys.executable, "-m", "hermes_cli"]
# Its sitecustomize.py gives every child Python the conftest's network guard.
GUARD_DIR = Path(__file__).resolve().parent / "guard"
MODEL = "claude-sonnet-5"
T = TypeVar("T")


# ---- waiting ---------------------------------------------------------------------------
def wait_until(condition: Callable[[], T], timeout: float = 10.0, what: str = "",
               interval: float = 0.01) -> T:
    """Poll `condition` until it returns something truthy (returned); fail the test with
    `what` after `timeout` seconds. The only polling loop tests use: no fixed sleeps."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for "
                                 f"{what or getattr(condition, '__name__', 'a condition')}")
        time.sleep(interval)


# ---- agents ----------------------------------------------------------------------------
def make_agent(fake, home: Path, cwd: Path, **config: Any):
    """A real AIAgent with the real Anthropic SDK against the fake HTTP server (wire tier)."""
    from agent.agent import AIAgent
    from agent.config import AgentConfig
    from agent.providers.base import ProviderSettings
    from memory.store import SessionStore

    settings = ProviderSettings("anthropic", MODEL, "test-key", fake.anthropic_base_url)
    cfg = AgentConfig(provider=settings, home=home, cwd=cwd, **config)
    return AIAgent(cfg, SessionStore(home / "state.db"), clock=fake.clock.now)


def scripted_agent(model, home: Path, cwd: Path, *, clock: Callable[[], float] | None = None,
                   provider: str = "anthropic", model_name: str = MODEL, **config: Any):
    """A real AIAgent whose provider is the in-process ScriptedModel (fast tier). The
    settings point nowhere: a call that bypassed the injected model would fail."""
    from agent.agent import AIAgent
    from agent.config import AgentConfig
    from agent.providers.base import ProviderSettings
    from memory.store import SessionStore

    settings = ProviderSettings(provider, model_name, "test-key", "http://127.0.0.1:9")
    cfg = AgentConfig(provider=settings, home=home, cwd=cwd, **config)
    kwargs = {"clock": clock} if clock is not None else {}
    return AIAgent(cfg, SessionStore(home / "state.db"), provider=model, **kwargs)


def run(agent, text: str) -> list:
    """One turn that must end with an answer; returns its events."""
    from agent.events import Done

    events = list(agent.run_turn(text))
    assert isinstance(events[-1], Done) and events[-1].reason == "answer", events
    return events


# ---- the real CLI ----------------------------------------------------------------------
def child_env(home: Path, **extra: str) -> dict[str, str]:
    """Environment for a `hermes` subprocess: isolated home, no provider leakage, and
    the network guard (tests/guard/sitecustomize.py) first on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_ENV}
    env.update({"HERMES_HOME": str(home), "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != str(GUARD_DIR)]
    env["PYTHONPATH"] = os.pathsep.join([str(GUARD_DIR), *paths])
    return env


def anthropic_env(home: Path, fake) -> dict[str, str]:
    return child_env(home, ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.anthropic_base_url)


def openai_env(home: Path, fake) -> dict[str, str]:
    return child_env(home, OPENAI_API_KEY="test-key", OPENAI_BASE_URL=fake.openai_base_url)


def hermes(args: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 60,
           input_text: str | None = None, wrapper: list[str] | tuple[str, ...] = (),
           ) -> subprocess.CompletedProcess[str]:
    """Run `hermes ARGS` (under `wrapper`, e.g. read_only_mount()) and capture its output."""
    return subprocess.run([*wrapper, *HERMES, *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, input=input_text)


def _root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def read_only_mount(path: Path) -> list[str]:
    """A command prefix that runs its command in a private mount namespace where `path`
    is a read-only bind mount (EROFS for root too; CI runs as root). Non-root users get
    the namespace through a user namespace (`unshare -r`)."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" "$0" && exec "$@"'
    flags = ["-m"] if _root() else ["-r", "-m"]
    return ["unshare", *flags, "--propagation", "private", "sh", "-c", script, str(path)]


def without_file_override() -> list[str]:
    """A command prefix that runs its command without CAP_DAC_OVERRIDE/READ_SEARCH, so
    file permission bits apply to root as to any user (empty when not root)."""
    if not _root():
        return []
    return ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]


# ---- the gateway harness (tests/gateway/conftest.py) -----------------------------------
KEY_A = "key-alpha-0123456789"
KEY_B = "key-bravo-0123456789"
GATEWAY_MODEL = "claude-sonnet-5-5"


def gateway_of(server):
    """The Gateway object behind a running server (for white-box checks)."""
    return server.server.config.app.state.api.gateway


def ask(client, session: str, text: str, **kwargs: Any):
    """One message of `session` through an `openai.OpenAI` client; returns the ChatCompletion."""
    return client.chat.completions.create(
        model=kwargs.pop("model", "hermes"), messages=kwargs.pop("messages", None)
        or [{"role": "user", "content": text}],
        extra_headers={"X-Hermes-Session-Id": session}, **kwargs)


def system_of(record) -> Any:
    """The system blocks of an Anthropic request as the fake received them."""
    return record.body.get("system")
