"""OTLP export through the real SDK and exporter to a local receiver (decoded with
opentelemetry-proto): a `hermes gateway` worker and the CLI, when the standard OTEL_*
variables are set (wire tier)."""

from __future__ import annotations

import httpx
import pytest

from tests.fakes import FakeProvider
from tests.fakes.gateway_workers import Worker, write_config
from tests.fakes.otlp import OtlpReceiver
from tests.helpers import GATEWAY_MODEL, KEY_A, anthropic_env, hermes

pytestmark = pytest.mark.wire

FAST_EXPORT = {"OTEL_BSP_SCHEDULE_DELAY": "50", "OTEL_METRIC_EXPORT_INTERVAL": "200"}


def _usage_spans(spans, model: str):
    return [s for s in spans if s.name == f"chat {model}"
            and s.attributes.get("gen_ai.usage.input_tokens", 0) > 0]


def test_a_gateway_worker_exports_turn_call_and_usage_spans(hermes_home):
    with FakeProvider(min_cache_tokens=64) as fake, OtlpReceiver() as otlp:
        write_config(hermes_home, fake.anthropic_base_url)
        worker = Worker(hermes_home, env={"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.endpoint,
                                          "OTEL_SERVICE_NAME": "hermes-gw",
                                          "OTEL_METRICS_EXPORTER": "otlp", **FAST_EXPORT})
        try:
            for turn in range(2):
                answer = httpx.post(f"{worker.base_url}/chat/completions", timeout=30,
                                    headers={"authorization": f"Bearer {KEY_A}",
                                             "x-hermes-session-id": "traced"},
                                    json={"model": "hermes", "messages": [
                                        {"role": "user", "content": f"turn {turn} private"}]})
                assert answer.status_code == 200, answer.text
            spans = otlp.wait_for_spans(lambda got: len(_usage_spans(got, GATEWAY_MODEL)) >= 2
                                        and sum(s.name == "invoke_agent hermes" for s in got) >= 2)
        finally:
            worker.stop()  # the SDK flushes at exit: the GenAI client metrics too
        posted = dict(otlp.posts)
    calls = _usage_spans(spans, GATEWAY_MODEL)
    billed = fake.requests
    assert [c.attributes["gen_ai.usage.input_tokens"] for c in calls] == [
        r.prompt_tokens for r in billed]
    assert [c.attributes["gen_ai.usage.cache_read.input_tokens"] for c in calls] == [
        r.cache_read for r in billed]
    assert [c.attributes["gen_ai.usage.cache_creation.input_tokens"] for c in calls] == [
        r.cache_write for r in billed]
    assert calls[1].attributes["gen_ai.usage.cache_read.input_tokens"] > 0
    turns = {s.span_id: s for s in spans if s.name == "invoke_agent hermes"}
    assert all(c.parent_id in turns for c in calls)
    assert all(c.attributes["gen_ai.operation.name"] == "chat" for c in calls)
    assert calls[0].resource["service.name"] == "hermes-gw"
    assert "private" not in repr([s.attributes for s in spans])
    assert posted.get("/v1/metrics", 0) >= 1


def test_the_cli_exports_with_the_same_variables(hermes_home, fake_provider, tmp_path):
    with OtlpReceiver() as otlp:
        env = anthropic_env(hermes_home, fake_provider)
        env.update(OTEL_EXPORTER_OTLP_ENDPOINT=otlp.endpoint, **FAST_EXPORT)
        result = hermes(["-q", "say hi"], env, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        spans = otlp.wait_for_spans(lambda got: any(s.name == "invoke_agent hermes" for s in got))
    (turn,) = [s for s in spans if s.name == "invoke_agent hermes"]
    calls = [s for s in spans if s.name.startswith("chat ")]
    assert len(calls) == 1 and calls[0].parent_id == turn.span_id
    assert calls[0].attributes["gen_ai.usage.output_tokens"] > 0
    assert turn.resource["service.name"] == "hermes"
