"""Both adapters' `stream()` through the real SDKs against the local fake provider."""

from __future__ import annotations

import threading

import pytest

from agent.cancel import CancelToken
from agent.errors import AuthenticationError, ProviderError, TransientProviderError, TurnCancelled
from agent.messages import Breakpoint, Message, Request, SystemBlock, ToolCall, ToolSchema
from agent.providers import make_provider
from agent.providers.base import ProviderSettings, StreamDone, StreamText
from agent.providers.cache_model import CacheHints
from tests.fakes import Drop, Error, FakeProvider, Reply
from tests.fakes import ToolCall as FakeCall
from tests.helpers import wait_until

SYSTEM = [SystemBlock("You are a careful test assistant. " * 20)]
TOOLS = [ToolSchema("shell", "Run a command", {"properties": {"cmd": {"type": "string"}}, "type": "object"})]
MODELS = {"anthropic": "claude-sonnet-5", "openai": "gpt-5"}


_OPEN: list = []


@pytest.fixture(autouse=True)
def _close_adapters():
    yield
    while _OPEN:
        _OPEN.pop().close()


def provider(fake: FakeProvider, kind: str, api_key: str | None = "test"):
    base = fake.anthropic_base_url if kind == "anthropic" else fake.openai_base_url
    adapter = make_provider(ProviderSettings(kind, MODELS[kind], api_key=api_key, base_url=base, timeout=10))
    _OPEN.append(adapter)
    return adapter


def request(kind: str, text: str = "hello", **changes) -> Request:
    values = {"model": MODELS[kind], "system": SYSTEM, "messages": [Message("user", text)],
              "tools": TOOLS, "session_id": "s1"}
    values.update(changes)
    return Request(**values)


def run(adapter, req: Request, cancel: CancelToken | None = None):
    texts, done = [], None
    for item in adapter.stream(req, cancel or CancelToken()):
        if isinstance(item, StreamText):
            texts.append(item.text)
        else:
            assert isinstance(item, StreamDone)
            done = item.reply
    return texts, done


@pytest.fixture(params=["anthropic", "openai"])
def kind(request) -> str:
    return request.param


def test_text_stream(fake_provider, kind):
    fake_provider.script(Reply(text="Hello there, friend", chunks=3))
    adapter = provider(fake_provider, kind)
    texts, reply = run(adapter, request(kind))
    adapter.close()
    assert len(texts) >= 2 and "".join(texts) == "Hello there, friend"
    assert reply.message.content == "Hello there, friend"
    assert reply.message.tool_calls == ()
    assert reply.usage.output > 0 and reply.usage.prompt_tokens > 0
    assert reply.response_id


def test_tool_calls(fake_provider, kind):
    fake_provider.script(Reply(text="", tool_calls=[FakeCall("shell", {"z": 1, "cmd": "ls"}, id="c1")]))
    _, reply = run(provider(fake_provider, kind), request(kind))
    assert reply.message.tool_calls == (ToolCall("c1", "shell", '{"cmd":"ls","z":1}'),)


def test_anthropic_cache_and_diagnostics(fake_provider):
    adapter = provider(fake_provider, "anthropic")
    points = [Breakpoint("system", 0), Breakpoint("message", -1)]
    fake_provider.script(Reply(text="one"), Reply(text="two"))
    _, first = run(adapter, request("anthropic", breakpoints=points))
    assert first.usage.write_5m > 0 and first.usage.cache_read == 0
    body = fake_provider.last.body
    assert body["diagnostics"] == {"previous_message_id": None}
    history = [Message("user", "hello"), first.message, Message("user", "again")]
    _, second = run(adapter, request("anthropic", messages=history, breakpoints=points,
                                     cache=CacheHints(previous=first.response_id)))
    assert second.usage.cache_read >= first.usage.write_5m
    assert fake_provider.last.body["diagnostics"] == {"previous_message_id": first.response_id}


@pytest.mark.wire
@pytest.mark.parametrize("style, known", [("openai", True), ("openrouter", True), ("deepseek", True),
                                          ("llamacpp", True), ("none", False)])
def test_openai_usage_styles(style, known):
    with FakeProvider(openai_usage_style=style, openai_min_cache_tokens=128, openai_cache_step=64) as fake:
        fake.script(Reply(text="a"), Reply(text="b"))
        adapter = provider(fake, "openai")
        _, first = run(adapter, request("openai"))
        history = [Message("user", "hello"), first.message, Message("user", "more")]
        _, second = run(adapter, request("openai", messages=history))
        adapter.close()
    assert second.usage.cache_known is known
    if known:
        assert second.usage.cache_read > 0
    else:
        assert second.usage.hit_rate is None


def test_rate_limit_is_transient_with_retry_after(fake_provider, kind):
    fake_provider.script(Error(429, retry_after=7))
    with pytest.raises(TransientProviderError) as caught:
        run(provider(fake_provider, kind), request(kind))
    assert caught.value.retry_after == pytest.approx(7)
    assert caught.value.status == 429
    assert "429" in caught.value.message


def test_server_errors_are_transient(fake_provider, kind):
    fake_provider.script(Error(500), Error(529 if kind == "anthropic" else 503))
    adapter = provider(fake_provider, kind)
    for _ in range(2):
        with pytest.raises(TransientProviderError):
            run(adapter, request(kind))


def test_in_stream_error_and_drop_are_transient(fake_provider, kind):
    fake_provider.script(Error(529 if kind == "anthropic" else 500, after_chunks=2),
                         Drop(after_chunks=2))
    adapter = provider(fake_provider, kind)
    for _ in range(2):
        with pytest.raises(TransientProviderError):
            run(adapter, request(kind))


def test_auth_error_has_hint(fake_provider, kind):
    fake_provider.script(Error(401))
    with pytest.raises(AuthenticationError) as caught:
        run(provider(fake_provider, kind), request(kind))
    assert ("ANTHROPIC_API_KEY" if kind == "anthropic" else "OPENAI_API_KEY") in caught.value.hint


def test_prompt_too_long(fake_provider, kind):
    from agent.errors import PromptTooLongError

    message = "prompt is too long: 300000 tokens > 200000 maximum"
    if kind == "openai":
        message = "This model's maximum context length is 128000 tokens."
    fake_provider.script(Error(400, message=message, type=None if kind == "anthropic" else "context_length_exceeded"))
    with pytest.raises(PromptTooLongError):
        run(provider(fake_provider, kind), request(kind))


def test_not_found_names_model(fake_provider, kind):
    fake_provider.script(Error(404, message="model not found"))
    with pytest.raises(ProviderError) as caught:
        run(provider(fake_provider, kind), request(kind))
    assert "model" in caught.value.hint


@pytest.mark.wire
def test_connection_refused_names_base_url(kind):
    with FakeProvider() as fake:
        adapter = provider(fake, kind)
    with pytest.raises(TransientProviderError) as caught:
        run(adapter, request(kind))
    assert "127.0.0.1" in caught.value.message


def test_cancel_mid_stream_is_quick(fake_provider, kind):
    fake_provider.script(Reply(text="word " * 40, chunks=20, delay=3.0))
    cancel = CancelToken()
    adapter = provider(fake_provider, kind)
    stream = adapter.stream(request(kind), cancel)
    cancelled_at: list[int] = []

    def cancel_once_streaming() -> None:  # the first event is out, the next is 3 s away
        wait_until(lambda: any(r.events_sent for r in fake_provider.requests_for(kind)),
                   what="the stream to start")
        cancelled_at.append(sum(r.events_sent for r in fake_provider.requests_for(kind)))
        cancel.cancel()

    threading.Thread(target=cancel_once_streaming, daemon=True).start()
    with pytest.raises(TurnCancelled):
        for _ in stream:
            pass
    # aborted before the next event (3 s away) was sent
    assert sum(r.events_sent for r in fake_provider.requests_for(kind)) == cancelled_at[0]


def test_cancel_after_first_text(fake_provider, kind):
    fake_provider.script(Reply(text="word " * 40, chunks=20, delay=3.0))
    cancel = CancelToken()
    received = []
    with pytest.raises(TurnCancelled):
        for item in provider(fake_provider, kind).stream(request(kind), cancel):
            if isinstance(item, StreamText) and not received:
                received.append(item.text)
                sent = sum(r.events_sent for r in fake_provider.requests_for(kind))
                threading.Thread(target=cancel.cancel).start()  # from another thread
    assert received
    # Aborted before the event after next (3 s apart; 20+ in all) was sent. +1: the fake
    # bumps its counter just after flushing an event, so `sent` may lag the client by one.
    assert sum(r.events_sent for r in fake_provider.requests_for(kind)) <= sent + 1


def test_streams_reuse_their_reader_threads(fake_provider, kind):
    """A model call starts no thread of its own: the reader threads are kept for the next
    call (one after the other: at most one more when the next call comes before the
    last reader is back)."""
    adapter = provider(fake_provider, kind)
    before = set(threading.enumerate())  # other tests' readers (idle, or stuck on a socket)
    seen: set[threading.Thread] = set()
    for turn in range(5):
        fake_provider.script(Reply(text=f"answer {turn} in pieces", chunks=3, delay=0.02))
        for _ in adapter.stream(request(kind), CancelToken()):
            seen.update(t for t in threading.enumerate() if t.name == "hermes-provider-stream")
    assert seen and len(seen - before) <= 2  # a thread per call would make 5


def test_cancel_before_start(fake_provider, kind):
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(TurnCancelled):
        run(provider(fake_provider, kind), request(kind), cancel)
    assert fake_provider.requests_for(kind) == []


def test_missing_key(fake_provider, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(AuthenticationError) as caught:
        run(provider(fake_provider, "anthropic", api_key=None), request("anthropic"))
    assert "ANTHROPIC_API_KEY" in caught.value.hint
    # a custom OpenAI-compatible base URL (llama.cpp, Ollama) works without a key
    fake_provider.script(Reply(text="local"))
    _, reply = run(provider(fake_provider, "openai", api_key=None), request("openai"))
    assert reply.message.content == "local"
    official = make_provider(ProviderSettings("openai", "gpt-5"))
    with pytest.raises(AuthenticationError) as caught:
        run(official, request("openai"))
    assert "OPENAI_API_KEY" in caught.value.hint
