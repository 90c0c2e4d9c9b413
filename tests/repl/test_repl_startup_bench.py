"""bench/startup.py runs and prints its table (one run per measurement)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.wire  # runs a process or opens a socket

ROOT = Path(__file__).resolve().parents[2]


def test_startup_bench_prints_its_table():
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "startup.py"), "--runs", "1"],
                            capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    for label in ("python -c pass", "hermes --version", "hermes (REPL) first prompt"):
        assert label in result.stdout
    assert "provider SDKs imported before the first prompt: none" in result.stdout
    assert "requests sent to the provider before any message: 0" in result.stdout
