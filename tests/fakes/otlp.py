"""A local OTLP/HTTP receiver (protobuf), the collector's side of the wire, for tests
and the CPU bench: it decodes `POST /v1/traces` with opentelemetry-proto and keeps the
spans; `/v1/metrics` (and `/v1/logs`) are accepted and counted.

    with OtlpReceiver() as otlp:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = otlp.endpoint
        ...
        spans = otlp.wait_for_spans(lambda spans: len(spans) >= 3)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Span:
    """One received span: its name, ids, attributes (plain Python values) and times."""

    name: str
    trace_id: str
    span_id: str
    parent_id: str
    attributes: dict[str, Any] = field(default_factory=dict)
    start_ns: int = 0
    end_ns: int = 0
    status: int = 0  # 0 unset, 1 ok, 2 error
    resource: dict[str, Any] = field(default_factory=dict)


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def _attributes(items: Any) -> dict[str, Any]:
    return {item.key: _value(item.value) for item in items}


def decode_traces(body: bytes) -> list[Span]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    out = []
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                out.append(Span(span.name, span.trace_id.hex(), span.span_id.hex(),
                                span.parent_span_id.hex(), _attributes(span.attributes),
                                span.start_time_unix_nano, span.end_time_unix_nano,
                                span.status.code, resource))
    return out


class OtlpReceiver:
    """ThreadingHTTPServer on 127.0.0.1 (a free port) collecting what exporters send."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.posts: dict[str, int] = {}
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return None

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                spans = decode_traces(body) if self.path == "/v1/traces" else []
                with receiver._changed:
                    receiver.posts[self.path] = receiver.posts.get(self.path, 0) + 1
                    receiver.spans.extend(spans)
                    receiver._changed.notify_all()
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def wait_for_spans(self, ready: Callable[[list[Span]], bool],
                       timeout: float = 30.0) -> list[Span]:
        """The spans once `ready(spans)` holds; AssertionError after `timeout` s."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not ready(list(self.spans)):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"OTLP receiver: not ready after {timeout} s; got "
                                         f"{[s.name for s in self.spans]}")
                self._changed.wait(left)
            return list(self.spans)
