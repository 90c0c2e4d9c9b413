"""Shared test helpers: run the real `hermes` command in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROVIDER_ENV = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY",
    "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "HERMES_API_KEY",
)
HERMES = [sys.executable, "-m", "hermes_cli"]
# Its sitecustomize.py gives every child Python the conftest's network guard.
GUARD_DIR = Path(__file__).resolve().parent / "guard"


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
           input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `hermes ARGS` and capture its output."""
    return subprocess.run([*HERMES, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, input=input_text)
