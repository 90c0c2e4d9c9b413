"""Provider faults through the real CLI and the real SDKs: each ends in one clear line
(or a retried success), never a traceback; `-q --json` still prints its JSON object."""

from __future__ import annotations

import json

import pytest

from tests.fakes import Drop, Error, Malformed, Reply
from tests.helpers import anthropic_env, hermes, openai_env

FAST_RETRY = "retry: {attempts: 2, base_delay: 0, max_delay: 0}\n"
PROVIDERS = ["anthropic", "openai"]


def _env(provider, home, fake):
    return (anthropic_env if provider == "anthropic" else openai_env)(home, fake)


def _one_clear_line(stderr: str) -> bool:
    errors = [line for line in stderr.splitlines() if "error" in line.lower()]
    return "Traceback" not in stderr and len(errors) >= 1 and len(errors[0]) < 400


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("data", [None, b"event: message_delta\ndata: [1, 2\n\n",
                                  b'event: message_delta\ndata: {"type": "message_delta", \n\n'])
def test_malformed_sse_is_retried_like_a_dropped_stream(provider, data, fake_provider,
                                                        hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text(FAST_RETRY)
    fake_provider.script(Malformed(after_chunks=1, data=data), Reply(text="second try"))
    result = hermes(["-q", "hi", "--json"], _env(provider, hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert json.loads(result.stdout)["answer"] == "second try"
    assert len(fake_provider.requests) == 2


FAULTS = {
    "malformed": lambda: Malformed(after_chunks=1),
    "malformed-first": lambda: Malformed(after_chunks=0),
    "drop": lambda: Drop(),
    "drop-mid": lambda: Drop(after_chunks=2),
    "500": lambda: Error(500),
    "529": lambda: Error(529),
    "429": lambda: Error(429, retry_after=0),
    "in-stream-500": lambda: Error(500, after_chunks=1),
}


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_persistent_fault_is_one_clear_line_and_json(provider, fault, fake_provider, hermes_home,
                                                     tmp_path):
    (hermes_home / "config.yaml").write_text(FAST_RETRY)
    fake_provider.script(FAULTS[fault](), FAULTS[fault]())
    result = hermes(["-q", "hi", "--json"], _env(provider, hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode != 0
    assert _one_clear_line(result.stderr), result.stderr
    payload = json.loads(result.stdout)
    assert payload.get("error"), payload
    assert len(fake_provider.requests) == 2  # retried once (attempts: 2), then gave up
