"""A base URL nothing listens on: the session's first call fails at once naming the
variable to fix - no retries, no fallback, no "try again later". (A refused connection
after the URL has worked stays an outage: tests/agent/test_retry_unreachable.py.)"""

from __future__ import annotations

import socket

import pytest

from tests.helpers import child_env, hermes

pytestmark = pytest.mark.wire


def _closed_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(("key", "url_var", "model"), [
    ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "claude-sonnet-5"),
    ("OPENAI_API_KEY", "OPENAI_BASE_URL", "gpt-5.2"),
])
def test_first_call_to_a_dead_url_fails_at_once(hermes_home, tmp_path, key, url_var, model):
    (hermes_home / "config.yaml").write_text(f"fallback_model: {model}\n")
    env = child_env(hermes_home, **{key: "test-key",
                                    url_var: f"http://127.0.0.1:{_closed_port()}/v1"})
    result = hermes(["-q", "hello", "-m", model], env, cwd=tmp_path)
    assert result.returncode == 1
    assert "cannot connect" in result.stderr and url_var in result.stderr
    assert "retrying" not in result.stderr and "fallback" not in result.stderr
    assert "Traceback" not in result.stderr

