"""OpenTelemetry spans of a real agent turn (scripted model, the SDK's in-memory
exporter): one per turn, per provider call and per tool call, GenAI attributes,
no content unless asked (fast tier)."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent.otel import OtelObserver, enabled, install_from_env
from agent.usage import Usage
from tests.fakes import ToolCall
from tests.fakes.scripted import Answer, ScriptedModel
from tests.helpers import MODEL, run, scripted_agent

FIRST = Usage(uncached=40, write_5m=900, cache_read=0, output=12)
SECOND = Usage(uncached=30, cache_read=900, output=5)


def _turn(home, cwd, capture: bool):
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = ScriptedModel(
        Answer(text="", tool_calls=[ToolCall("todo", {"todos": [
            {"id": "1", "content": "secret plan", "status": "pending"}]})], usage=FIRST),
        Answer(text="all done", usage=SECOND))
    agent = scripted_agent(model, home, cwd)
    agent.observers = (OtelObserver(provider, capture_content=capture),)
    run(agent, "the user's private words")
    agent.close()
    return {s.name: s for s in exporter.get_finished_spans()}, exporter.get_finished_spans()


def test_a_turn_makes_a_span_per_turn_call_and_tool(hermes_home, tmp_path):
    named, spans = _turn(hermes_home, tmp_path, capture=False)
    calls = [s for s in spans if s.name == f"chat {MODEL}"]
    assert len(spans) == 4 and len(calls) == 2
    turn, tool = named["invoke_agent hermes"], named["execute_tool todo"]
    assert turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn.attributes["gen_ai.request.model"] == MODEL
    assert turn.attributes["gen_ai.usage.input_tokens"] == 940 + 930
    assert turn.attributes["gen_ai.usage.output_tokens"] == 17
    for span in (*calls, tool):  # children of the turn, in its trace
        assert span.parent.span_id == turn.context.span_id
        assert turn.start_time <= span.start_time <= span.end_time <= turn.end_time
    first, second = sorted(calls, key=lambda s: s.start_time)
    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.request.model"] == MODEL
    assert first.attributes["gen_ai.provider.name"] == "anthropic"
    assert first.attributes["gen_ai.usage.input_tokens"] == 940
    assert first.attributes["gen_ai.usage.output_tokens"] == 12
    assert first.attributes["gen_ai.usage.cache_creation.input_tokens"] == 900
    assert first.attributes["gen_ai.usage.cache_read.input_tokens"] == 0
    assert second.attributes["gen_ai.usage.cache_read.input_tokens"] == 900
    assert second.attributes["hermes.cost_usd"] > 0
    assert first.end_time <= tool.start_time <= tool.end_time <= second.start_time
    assert tool.attributes["gen_ai.tool.name"] == "todo"
    everything = repr([dict(s.attributes) for s in spans])
    assert "private words" not in everything and "secret plan" not in everything
    assert "all done" not in everything


def test_content_only_when_the_operator_opts_in(hermes_home, tmp_path):
    named, _ = _turn(hermes_home, tmp_path, capture=True)
    assert "private words" in named["invoke_agent hermes"].attributes["gen_ai.input.messages"]
    assert "all done" in named["invoke_agent hermes"].attributes["gen_ai.output.messages"]
    assert "secret plan" in named["execute_tool todo"].attributes["gen_ai.tool.call.arguments"]


@pytest.mark.parametrize(("environ", "on"), [
    ({}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, True),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, True),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, False),
])
def test_export_only_when_the_standard_variables_ask(environ, on):
    assert enabled(environ) is on
    if not on:
        assert install_from_env(environ) is False
