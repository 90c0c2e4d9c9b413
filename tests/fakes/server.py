"""FakeProvider: a local HTTP server speaking the Anthropic Messages, OpenAI Chat
Completions, OpenAI Responses (responses_api.py) and Gemini (gemini_api.py: generateContent
and cachedContents, any method) wire formats, the models lists (models_api.py), with a
deterministic prompt-cache model (see cache.py).

Run standalone for manual tries: python -m tests.fakes.server --port 8765
Control endpoints (JSON): POST /_fake/script {"items": [{"text": ..., "tool_calls": [...]},
{"error": {"status": 429}}, {"drop": {}}]}, POST /_fake/advance {"seconds": 301},
POST /_fake/reset, GET /_fake/requests, GET /_fake/health.
"""

from __future__ import annotations

import argparse
import email.utils
import itertools
import json
import sys
import threading
import time
import traceback
from collections import defaultdict, deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from . import anthropic_api, deepseek_api, gemini_api, models_api, openai_api, responses_api
from .cache import PrefixCache, anthropic_min_tokens
from .script import FakeClock, Item, Outcome, Record, Reply, item_from_json, record_summary

ROUTES: dict[str, tuple[str, Callable[[Any, Record], Outcome]]] = {
    "/v1/messages": ("anthropic", anthropic_api.handle),
    "/v1/messages/count_tokens": ("anthropic", anthropic_api.count_tokens),
    "/v1/chat/completions": ("openai", openai_api.handle),
    "/chat/completions": ("openai", openai_api.handle),
    "/v1/responses": ("responses", responses_api.handle),
    "/deepseek/chat/completions": ("deepseek", deepseek_api.handle),
}

Responder = Callable[[Record], Item | None]


class FakeProvider:
    """In-process fake LLM provider. Use as a context manager or start()/stop()."""

    def __init__(self, context_window: int = 200_000, openai_usage_style: str = "openai", *,
                 min_cache_tokens: int | None = None, openai_min_cache_tokens: int = 1024,
                 openai_cache_step: int = 128, port: int = 0) -> None:
        if openai_usage_style not in openai_api.USAGE_STYLES:
            raise ValueError(f"openai_usage_style must be one of {openai_api.USAGE_STYLES}")
        self.context_window = context_window
        self.openai_usage_style = openai_usage_style
        self.min_cache_tokens = min_cache_tokens
        self.openai_min_cache_tokens = openai_min_cache_tokens
        self.openai_cache_step = openai_cache_step
        self.clock = FakeClock()
        # seconds an Anthropic request takes before its response begins; what it writes
        # is readable only then, so requests sent together each write their prefix
        self.prefill = 0.0
        self.cache = PrefixCache()
        self.lock = threading.RLock()
        self.responder: Responder | None = None
        self.fingerprints: dict[str, anthropic_api.Fingerprint] = {}
        self.responses = responses_api.ResponsesState()  # the Responses API's memory
        self.gemini = gemini_api.GeminiState()  # Gemini's explicit caches and their bill
        self.deepseek = deepseek_api.DeepSeekState()  # DeepSeek's reasoning and its bill
        self.rejected_keys: set[str] = set()  # API keys the models lists answer 401 (models_api)
        self._script: deque[Item] = deque()
        self._records: list[Record] = []
        self._counters: dict[str, itertools.count] = defaultdict(lambda: itertools.count(1))
        self._port = port
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------ lifecycle
    def start(self) -> FakeProvider:
        if self._server is not None:
            return self
        server = ThreadingHTTPServer(("127.0.0.1", self._port), _Handler)
        server.daemon_threads = True
        server.provider = self  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="fake-provider",
                                        kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeProvider is not started")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def anthropic_base_url(self) -> str:
        return self.base_url

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"

    @property
    def gemini_base_url(self) -> str:
        return self.base_url

    @property
    def deepseek_base_url(self) -> str:
        return self.base_url + "/deepseek"

    # ------------------------------------------------------------ script and records
    def script(self, *items: Item) -> None:
        """Queue outcomes; each API request consumes one (FIFO), across both APIs."""
        with self.lock:
            self._script.extend(items)

    @property
    def remaining(self) -> int:
        """Number of scripted items not yet consumed."""
        with self.lock:
            return len(self._script)

    def next_item(self, rec: Record) -> Item:
        with self.lock:
            item = self._script.popleft() if self._script else None
            responder = self.responder
        if item is None and responder is not None:
            item = responder(rec)
        if item is None:
            item = Reply(text="ok")
        rec.item = item
        return item

    @property
    def requests(self) -> list[Record]:
        with self.lock:
            return list(self._records)

    def requests_for(self, api: str) -> list[Record]:
        return [r for r in self.requests if r.api == api]

    @property
    def last(self) -> Record:
        with self.lock:
            return self._records[-1]

    def reset(self) -> None:
        """Clear the script, the records, the cache and the diagnostics fingerprints."""
        with self.lock:
            self._script.clear()
            self._records.clear()
            self.fingerprints.clear()
            self.responses.clear()
            self.gemini.clear()
            self.deepseek.clear()
            self.cache.clear()

    def new_id(self, prefix: str) -> str:
        with self.lock:
            return f"{prefix}{next(self._counters[prefix])}"

    def anthropic_min_cache_tokens(self, model: str) -> int:
        if self.min_cache_tokens is not None:
            return self.min_cache_tokens
        return anthropic_min_tokens(model)

    def _new_record(self, api: str, path: str, headers: dict[str, str], raw: bytes) -> Record:
        with self.lock:
            rec = Record(api=api, path=path, headers=headers, raw=raw, time=self.clock.now())
            self._records.append(rec)
            return rec


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The `Date` header in the fake clock's time (from GeminiState.epoch),
        so a client reading the server's time sees the time the fake bills in."""
        return email.utils.formatdate(self.provider.gemini.epoch + self.provider.clock.now(),
                                      usegmt=True)

    @property
    def provider(self) -> FakeProvider:
        return self.server.provider  # type: ignore[attr-defined]

    def _read_body(self) -> bytes:
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _gemini(self, method: str) -> bool:
        """Serve a Gemini API path (any method); False when the path is not one."""
        path = self.path.split("?")[0]
        if not gemini_api.PATH.match(path):
            return False
        raw = self._read_body()
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = self.provider._new_record("gemini", path, headers, raw)
        try:
            outcome = gemini_api.route(self.provider, rec, method)
        except Exception as exc:  # a bug in the fake: make it visible
            traceback.print_exc(file=sys.stderr)
            rec.status, rec.error = 500, f"fake server crashed: {exc!r}"
            outcome = Outcome(500, body={"error": {"code": 500, "message": rec.error}})
        self._send(outcome, rec)
        return True

    def do_PATCH(self) -> None:  # noqa: N802
        if not self._gemini("PATCH"):
            self._json(404, {"error": {"type": "not_found_error", "message": "no such path"}})

    def do_DELETE(self) -> None:  # noqa: N802
        if not self._gemini("DELETE"):
            self._json(404, {"error": {"type": "not_found_error", "message": "no such path"}})

    def do_GET(self) -> None:  # noqa: N802
        path, _, query = self.path.partition("?")
        if path in models_api.PATHS:
            headers = {k.lower(): v for k, v in self.headers.items()}
            rec = self.provider._new_record("models", path, headers, b"")
            self._send(models_api.handle(self.provider, rec, query), rec)
            return
        if self._gemini("GET"):
            return
        if path == "/_fake/requests":
            self._json(200, [record_summary(r) for r in self.provider.requests])
        elif path == "/_fake/health":
            self._json(200, {"ok": True, "remaining": self.provider.remaining})
        else:
            self._json(404, {"error": {"type": "not_found_error", "message": f"no {path}"}})

    def do_POST(self) -> None:  # noqa: N802
        if self._gemini("POST"):
            return
        raw = self._read_body()
        path = self.path.split("?")[0]
        if path.startswith("/_fake/"):
            self._control(path, raw)
            return
        route = ROUTES.get(path)
        if route is None:
            self._json(404, {"error": {"type": "not_found_error", "message": f"no {path}"}})
            return
        api, handler = route
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = self.provider._new_record(api, path, headers, raw)
        self._send(self._outcome(rec, handler), rec)

    def _outcome(self, rec: Record, handler: Callable[[Any, Record], Outcome]) -> Outcome:
        p = self.provider
        try:
            body = json.loads(rec.raw or b"null")
            if not isinstance(body, dict):
                raise ValueError("request body must be a JSON object")
        except ValueError as exc:
            message = f"invalid JSON body: {exc}"
            if rec.api == "anthropic":
                return anthropic_api.error_outcome(p, rec, 400, message)
            return openai_api.error_outcome(p, rec, 400, message)
        rec.body = body
        try:
            return handler(p, rec)
        except Exception as exc:  # a bug in the fake or a responder: make it visible
            traceback.print_exc(file=sys.stderr)
            rec.status, rec.error = 500, f"fake server crashed: {exc!r}"
            return Outcome(500, body={"type": "error", "error": {
                "type": "api_error", "message": rec.error}})

    def _control(self, path: str, raw: bytes) -> None:
        p = self.provider
        data = json.loads(raw or b"{}")
        if path == "/_fake/script":
            items = data.get("items", []) if isinstance(data, dict) else data
            p.script(*[item_from_json(i) for i in items])
        elif path == "/_fake/advance":
            p.clock.advance(float(data.get("seconds", 0)))
        elif path == "/_fake/reset":
            p.reset()
        else:
            self._json(404, {"error": f"no {path}"})
            return
        self._json(200, {"ok": True, "now": p.clock.now(), "remaining": p.remaining})

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _send(self, outcome: Outcome, rec: Record) -> None:
        try:
            if outcome.body is None and outcome.events is None:
                self.close_connection = True  # Drop(): no response at all
            elif outcome.events is None:
                if outcome.delay:
                    time.sleep(outcome.delay)
                self._json(outcome.status, outcome.body, outcome.headers)
            else:
                self._stream(outcome, rec)
        except (BrokenPipeError, ConnectionResetError):
            rec.disconnected = True
            self.close_connection = True

    def _stream(self, outcome: Outcome, rec: Record) -> None:
        self.send_response(outcome.status)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        for key, value in outcome.headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.flush()
        assert outcome.events is not None
        for index, event in enumerate(outcome.events):
            if outcome.drop_after is not None and index >= outcome.drop_after:
                break
            if index and outcome.delay:
                time.sleep(outcome.delay)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            self.wfile.flush()
            rec.events_sent += 1
        if outcome.drop_after is not None:
            self.close_connection = True  # cut without the terminating chunk
            return
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake Anthropic/OpenAI provider server")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--context-window", type=int, default=200_000)
    parser.add_argument("--usage-style", default="openai", choices=openai_api.USAGE_STYLES)
    parser.add_argument("--min-cache-tokens", type=int, default=None)
    parser.add_argument("--openai-min-cache-tokens", type=int, default=1024)
    parser.add_argument("--openai-cache-step", type=int, default=128)
    args = parser.parse_args(argv)
    fake = FakeProvider(args.context_window, args.usage_style,
                        min_cache_tokens=args.min_cache_tokens,
                        openai_min_cache_tokens=args.openai_min_cache_tokens,
                        openai_cache_step=args.openai_cache_step, port=args.port).start()
    print(f"fake provider: anthropic {fake.anthropic_base_url}  openai {fake.openai_base_url}",
          flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
