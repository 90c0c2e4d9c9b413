"""What the REPL imports before its first prompt: nothing heavy that the first message
does not need (start-up is measured in bench/startup.py; this guards the big regressions).

The provider SDKs, the price library and pydantic each cost 50-200 ms to import; they are
loaded lazily by the first call. pydantic arrived once through Typer 0.29 (an adapter per
option at every start), hence the pin in pyproject.toml.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import HERMES, anthropic_env, child_env

pytestmark = pytest.mark.wire

HEAVY = ("anthropic", "openai", "genai_prices", "pydantic", "pydantic_core", "sqlite_utils",
         "httpx", "mcp", "telegram", "opentelemetry", "google", "PIL")


def _imported_before_prompt(home: Path) -> set[str]:
    import pexpect

    from hermes_cli.repl.main import PROMPT_MARKER

    env = child_env(home, ANTHROPIC_API_KEY="test-key",
                    ANTHROPIC_BASE_URL="http://127.0.0.1:9", PROMPT_TOOLKIT_NO_CPR="1",
                    PYTHONPROFILEIMPORTTIME="1")
    child = pexpect.spawn(HERMES[0], HERMES[1:], env=env, cwd=str(home), dimensions=(40, 250),
                          encoding="utf-8", timeout=30)
    try:
        child.expect_exact(PROMPT_MARKER)
        before = child.before or ""
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    names = set()
    for line in before.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    assert "hermes_cli" in names, before[-2000:]  # the profile was read at all
    return names


def test_repl_imports_nothing_heavy_before_the_first_prompt(tmp_path):
    heavy = sorted(set(HEAVY) & _imported_before_prompt(tmp_path))
    assert heavy == [], f"imported before the first prompt: {heavy}"


def _imported_by_a_turn(home: Path, cwd: Path, fake, **extra: str) -> set[str]:
    """Modules (dotted names) a fresh `hermes -q` imports over a whole turn."""
    env = anthropic_env(home, fake) | {"PYTHONPROFILEIMPORTTIME": "1", **extra}
    done = subprocess.run([*HERMES, "-q", "say hi"], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
            if line.startswith("import time:") and line.count("|") == 2}


def test_the_otel_sdk_is_imported_only_when_the_otel_variables_ask(hermes_home, tmp_path,
                                                                   fake_provider):
    """(The anthropic SDK imports the OpenTelemetry *API* itself; the SDK, the exporter
    and protobuf are ours, and only for a process that exports.)"""
    heavy = ("opentelemetry.sdk", "opentelemetry.exporter", "google.protobuf")
    plain = _imported_by_a_turn(hermes_home, tmp_path, fake_provider)
    assert not [m for m in plain if m.startswith(heavy)]
    asked = _imported_by_a_turn(hermes_home, tmp_path, fake_provider,
                                OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9",
                                OTEL_BSP_EXPORT_TIMEOUT="100", OTEL_EXPORTER_OTLP_TIMEOUT="1")
    assert {"opentelemetry.sdk", "opentelemetry.exporter"} <= asked  # the check can see them
