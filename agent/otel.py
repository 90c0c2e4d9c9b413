"""OpenTelemetry traces (and metrics) of agent turns, through the official SDK.

On only when the standard variables ask for it: `OTEL_EXPORTER_OTLP_ENDPOINT` (or
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set and `OTEL_SDK_DISABLED` not true. Then the
OTLP http/protobuf exporter sends spans, and the GenAI client metrics
(`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`) when
`OTEL_METRICS_EXPORTER=otlp` says so - off by default, unlike the SDK's own default:
they cost about as much CPU as the spans and repeat what the spans and the gateway's
/metrics already carry (docs/METRICS.md). The exporter reads the rest of `OTEL_*`
itself (headers, timeouts, batch sizes, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
Otherwise nothing of the SDK is imported: `install_from_env` reads the environment and
returns. (The anthropic SDK imports the OpenTelemetry API for spans of its own; hermes
sets no global tracer provider, so they stay off.)

Spans, with the GenAI semantic conventions:
- `invoke_agent hermes`: one per turn (a sub-agent's turn too, `hermes.subagent`);
- `chat <model>`: one per provider call (each UsageEvent: the call's usage as the
  provider billed it - input tokens (all of them, cache reads included), output, cache
  read and cache write tokens - its cost and hermes' cache-miss diagnosis), timed from
  the moment the loop asked for it;
- `execute_tool <name>`: one per tool call, its duration the tool's own.
No message content unless `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`
(then the user's message, the answer, tool arguments and results).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

from agent import observe
from agent.errors import ConfigError
from agent.events import Done, ErrorEvent, Event, ToolFinished, ToolStarted, UsageEvent
from agent.observe import TurnInfo

# Function-level imports below: the OpenTelemetry SDK and exporters load only when the
# OTEL_* variables ask for telemetry (nothing happens at import; most sessions never load
# them).

CONTENT_VAR = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
SCOPE = "hermes"
_lock = threading.Lock()
_installed: list[Any] = []  # the observer this process installed (at most one)


def enabled(environ: Mapping[str, str]) -> bool:
    """Whether the environment asks for OTLP export."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return bool(environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
                or environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip())


def install_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """Install the OTLP observer once per process when the environment asks for it;
    True when one is installed. Cheap when not asked: no import."""
    env = os.environ if environ is None else environ
    if _installed:
        return True
    if not enabled(env):
        return False
    with _lock:
        if not _installed:
            try:
                tracer_provider, meter_provider = _providers(env)
            except ImportError as exc:
                raise ConfigError(f"OTEL_EXPORTER_OTLP_ENDPOINT is set but OpenTelemetry "
                                  f"cannot be loaded ({exc})",
                                  "reinstall hermes (it depends on opentelemetry-sdk and "
                                  "opentelemetry-exporter-otlp-proto-http) or unset the "
                                  "OTEL_* variables") from None
            observer = OtelObserver(tracer_provider, meter_provider,
                                    capture_content=_true(env.get(CONTENT_VAR)))
            observe.add(observer)
            _installed.append(observer)
    return True


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def _providers(env: Mapping[str, str]) -> tuple[Any, Any]:
    """The SDK's tracer and meter providers with OTLP http/protobuf exporters (imported
    here: only a process that exports pays for them)."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": env.get("OTEL_SERVICE_NAME") or "hermes"})
    tracer_provider = TracerProvider(resource=resource)  # flushed at exit (shutdown_on_exit)
    tracer_provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    meter_provider = None
    if "otlp" in env.get("OTEL_METRICS_EXPORTER", "").lower():
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader

        reader = PeriodicExportingMetricReader(OTLPMetricExporter())
        meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    return tracer_provider, meter_provider


def usage_attributes(event: UsageEvent, requested: str = "") -> dict[str, Any]:
    """The GenAI usage attributes of one provider call (the response's model only when
    it is not the one asked for)."""
    usage = event.usage
    out: dict[str, Any] = {
        "gen_ai.usage.input_tokens": usage.prompt_tokens,
        "gen_ai.usage.output_tokens": usage.output,
    }
    if event.model != requested:
        out["gen_ai.response.model"] = event.model
    if usage.cache_known:
        out["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read
        out["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write
    if event.cost_usd is not None:
        out["hermes.cost_usd"] = event.cost_usd
    if event.miss_cause:
        out["hermes.cache.miss_cause"] = event.miss_cause
    return out


class OtelObserver:
    """An agent/observe.py observer that turns a turn's events into spans."""

    def __init__(self, tracer_provider: Any, meter_provider: Any = None, *,
                 capture_content: bool = False) -> None:
        from opentelemetry import trace

        self._trace = trace
        self.tracer = tracer_provider.get_tracer(SCOPE)
        self.tracer_provider = tracer_provider
        self.capture_content = capture_content
        self.tokens = self.duration = None
        if meter_provider is not None:
            meter = meter_provider.get_meter(SCOPE)
            self.tokens = meter.create_histogram(
                "gen_ai.client.token.usage", unit="{token}",
                description="Tokens per provider call, by gen_ai.token.type")
            self.duration = meter.create_histogram(
                "gen_ai.client.operation.duration", unit="s",
                description="Seconds per provider call")

    def watch(self, events: Iterator[Event], info: TurnInfo) -> Iterator[Event]:
        common = {"gen_ai.provider.name": info.provider, "gen_ai.request.model": info.model}
        # few attributes: each costs CPU twice, here and when the exporter encodes it
        attributes: dict[str, Any] = {**common, "gen_ai.operation.name": "invoke_agent",
                                      "gen_ai.conversation.id": info.session_id}
        if info.subagent:
            attributes["hermes.subagent"] = True
        if self.capture_content:
            attributes["gen_ai.input.messages"] = json.dumps(
                [{"role": "user", "parts": [{"type": "text", "content": info.text}]}])
        turn = self.tracer.start_span("invoke_agent hermes", attributes=attributes)
        context = self._trace.set_span_in_context(turn)
        tools: dict[str, tuple[int, ToolStarted]] = {}
        totals = {"gen_ai.usage.input_tokens": 0, "gen_ai.usage.output_tokens": 0}
        mark = time.time_ns()  # when the loop asked for what comes next (a provider call)
        try:
            for event in events:
                now = time.time_ns()
                if isinstance(event, UsageEvent):
                    self._call(event, common, context, mark, now)
                    totals["gen_ai.usage.input_tokens"] += event.usage.prompt_tokens
                    totals["gen_ai.usage.output_tokens"] += event.usage.output
                elif isinstance(event, ToolStarted):
                    tools[event.call_id] = (now, event)
                elif isinstance(event, ToolFinished):
                    self._tool(event, tools.pop(event.call_id, (now, None)), context)
                elif isinstance(event, ErrorEvent):
                    turn.set_status(self._trace.Status(self._trace.StatusCode.ERROR,
                                                       event.message))
                elif isinstance(event, Done):
                    if event.reason != "answer":
                        turn.set_attribute("hermes.turn.reason", event.reason)
                    if self.capture_content:
                        turn.set_attribute("gen_ai.output.messages", json.dumps(
                            [{"role": "assistant",
                              "parts": [{"type": "text", "content": event.answer}]}]))
                yield event
                mark = time.time_ns()
        except BaseException as exc:
            if not isinstance(exc, GeneratorExit):
                turn.record_exception(exc)
                turn.set_status(self._trace.Status(self._trace.StatusCode.ERROR, str(exc)))
            raise
        finally:
            turn.set_attributes(totals)
            turn.end()

    def _call(self, event: UsageEvent, common: dict[str, Any], context: Any,
              start: int, end: int) -> None:
        model = common["gen_ai.request.model"]
        span = self.tracer.start_span(
            f"chat {model}", context=context, start_time=start,
            attributes={**common, "gen_ai.operation.name": "chat",
                        **usage_attributes(event, model)})
        span.end(end_time=end)
        if self.tokens is not None and self.duration is not None:
            base = {**common, "gen_ai.operation.name": "chat",
                    "gen_ai.response.model": event.model}
            self.tokens.record(event.usage.prompt_tokens, {**base, "gen_ai.token.type": "input"})
            self.tokens.record(event.usage.output, {**base, "gen_ai.token.type": "output"})
            self.duration.record((end - start) / 1e9, base)

    def _tool(self, event: ToolFinished, started: tuple[int, ToolStarted | None],
              context: Any) -> None:
        start, call = started
        attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool",
                                      "gen_ai.tool.name": event.name,
                                      "gen_ai.tool.call.id": event.call_id}
        if self.capture_content:
            attributes["gen_ai.tool.call.arguments"] = call.arguments if call else ""
            attributes["gen_ai.tool.call.result"] = event.content
        span = self.tracer.start_span(f"execute_tool {event.name}", context=context,
                                      start_time=start, attributes=attributes)
        if not event.ok:
            span.set_status(self._trace.Status(self._trace.StatusCode.ERROR, event.summary))
        span.end(end_time=start + int(event.duration * 1e9))
