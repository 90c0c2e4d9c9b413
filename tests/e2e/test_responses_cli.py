"""`hermes -q` on GPT-5.6 through config.yaml's `openai: {api: responses}` (real CLI,
real openai SDK, the fake's /v1/responses): the cost -q --json shows is what the fake
billed, writes included; the continued session compares with its last response."""

from __future__ import annotations

import json

import pytest

from tests.fakes import Reply
from tests.helpers import hermes, openai_env

pytestmark = pytest.mark.wire  # runs a process and opens a socket

# gpt-5.6-sol: $4 in, $20 out, reads $0.40, writes $5 (1.25x) per Mtok (genai-prices data)
INPUT, OUTPUT, READ, WRITE = 4.0, 20.0, 0.4, 5.0


def billed(record) -> float:
    uncached = record.prompt_tokens - record.cache_read - record.cache_write
    return (uncached * INPUT + record.cache_write * WRITE + record.cache_read * READ
            + record.usage["output_tokens"] * OUTPUT) / 1e6


def test_gpt_5_6_on_the_responses_api_costs_what_was_billed(fake_provider, hermes_home,
                                                             tmp_path):
    (hermes_home / "config.yaml").write_text("openai: {api: responses}\n")
    env = openai_env(hermes_home, fake_provider)
    fake_provider.script(Reply(text="first"), Reply(text="second"))
    args = ["-m", "gpt-5.6-sol", "--json", "-q"]
    one = hermes([*args, "hello"], env, cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    two = hermes(["-c", *args, "again"], env, cwd=tmp_path)
    assert two.returncode == 0, two.stderr
    a, b = fake_provider.requests
    assert a.path == b.path == "/v1/responses" and a.status == b.status == 200
    assert b.body["prompt_cache_options"]["comparison_response_id"] == a.response_id
    assert b.miss_reason == "cache_hit" and b.cache_read > 0 and a.cache_write > 0
    for out, record in ((one, a), (two, b)):
        assert json.loads(out.stdout)["usage"]["cost_usd"] == pytest.approx(billed(record))


def test_a_bad_openai_api_setting_is_one_clear_line(fake_provider, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("openai: {api: grpc}\n")
    result = hermes(["-m", "gpt-5.6-sol", "-q", "hi"], openai_env(hermes_home, fake_provider),
                    cwd=tmp_path)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "`openai.api` must be auto, responses or chat" in result.stderr
    assert fake_provider.requests == []
