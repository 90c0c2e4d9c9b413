"""The cache-efficiency bench, shortened: every hard event, the targets, and a check that
the bench's ideal-read model does detect a miss when breakpoints are placed badly."""

from __future__ import annotations

import json
import urllib.request

import pytest

from bench.cache_efficiency import IDLE_GAP, MODEL, OTHER_MODEL, TARGET, run
from tests.fakes import FakeProvider
from tests.fakes.cache import FIVE_MINUTES

pytestmark = pytest.mark.wire  # runs a process or opens a socket


def test_short_bench_meets_the_targets() -> None:
    res = run(turns=12, quiet=True)
    assert res["requests"] >= 12 and not res["turn_errors"]
    assert res["errors_400"] == 0 and res["non_200"] == 0
    assert res["max_breakpoints"] <= 4
    assert res["over_ideal"] == []  # the ideal is an upper bound of what was read
    assert res["efficiency"] is not None and res["efficiency"] >= TARGET, res["shortfalls"]
    # the agent's /usage figures are exactly the fake's records, summed
    assert res["report_cache_read"] == res["read"]
    assert res["report_prompt_tokens"] == res["prompt"]
    assert res["report_hit_rate"] == res["read"] / res["prompt"]
    # the short run still holds every hard event
    reqs = res["per_request"]
    assert any(b["blocks"] - a["blocks"] > 20 for a, b in zip(reqs, reqs[1:], strict=False))
    assert any(b["time"] - a["time"] >= IDLE_GAP for a, b in zip(reqs, reqs[1:], strict=False))
    models = [t["model"] for t in res["per_turn"][:-1]]
    assert OTHER_MODEL in models and models[-1] == MODEL
    causes = {m["cause"] for m in res["misses"]}
    assert {"expired", "model_changed"} <= causes
    # the closing /compress: its summary call reads the session's cache
    compaction = res["per_turn"][-1]
    assert compaction["label"].startswith("/compress") and compaction["calls"] == 1
    assert compaction["read"] >= 0.8 * compaction["prompt"]
    assert compaction["cost"] <= 0.35 * compaction["uncached_cost"]


def _post(fake: FakeProvider, body: dict) -> None:
    request = urllib.request.Request(
        fake.anthropic_base_url + "/v1/messages", data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-api-key": "k",
                 "anthropic-version": "2023-06-01"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert response.status == 200


def test_ideal_model_catches_a_lookback_miss_and_an_expiry() -> None:
    from bench.cache_efficiency import measure

    mark = {"type": "ephemeral"}
    system = [{"type": "text", "text": "rules " * 1000}]
    first = [{"role": "user", "content": [{"type": "text", "text": "go", "cache_control": mark}]}]
    uses = [{"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {"path": str(i)}}
            for i in range(12)]
    results = [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "x"} for i in range(12)]
    results[-1] = dict(results[-1], cache_control=mark)  # only a final breakpoint: naive
    grown = [{"role": "user", "content": [{"type": "text", "text": "go"}]},
             {"role": "assistant", "content": uses}, {"role": "user", "content": results}]
    with FakeProvider() as fake:
        for messages in (first, grown):
            _post(fake, {"model": MODEL, "max_tokens": 10, "system": system,
                         "messages": messages})
        fake.clock.advance(FIVE_MINUTES + 1)
        _post(fake, {"model": MODEL, "max_tokens": 10, "system": system, "messages": grown})
        rows = measure(fake.requests_for("anthropic"), FIVE_MINUTES)
    assert rows[0]["prompt"] >= 1024
    assert rows[1]["read"] == 0 and rows[1]["ideal"] == rows[0]["prompt"]  # 24 blocks back
    assert rows[2]["ideal"] == 0 and rows[2]["read"] == 0  # expired: not ideal-readable


def test_short_bench_on_gpt_5_6_meets_the_targets() -> None:
    from bench._legs import OPENAI

    res = run(turns=12, quiet=True, leg=OPENAI)
    assert res["errors_400"] == 0 and res["non_200"] == 0 and not res["turn_errors"]
    assert res["efficiency"] is not None and res["efficiency"] >= TARGET, res["shortfalls"]
    assert res["report_cost"] == pytest.approx(res["cost"])  # writes included
    assert res["write"] > 0 and res["unread_writes"] < res["write"]
    assert res["new_session_read_share"] >= 0.9
    assert res["diagnosed_share"] >= 0.8
    assert {m["cause"] for m in res["misses"]} == {"model_changed"}
