"""Provider faults through the real CLI and the real SDKs: each ends in one clear line
(or a retried success), never a traceback; `-q --json` still prints its JSON object.
Bad streams too: a delta for a content block that never started, bytes that are not
UTF-8, usage numbers sent as strings and a tool call with megabytes of arguments."""

from __future__ import annotations

import json

import pytest

from tests.fakes import Drop, Error, FakeProvider, Malformed, Reply, ToolCall
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


def _event(provider: str, payload: dict) -> bytes:
    name = f"event: {payload['type']}\n" if provider == "anthropic" else ""
    return (name + "data: " + json.dumps(payload) + "\n\n").encode()


def _fails_clearly(provider, bad, fake, home, cwd, words):
    (home / "config.yaml").write_text(FAST_RETRY)
    fake.script(bad(), bad())
    result = hermes(["-q", "hi", "--json"], _env(provider, home, fake), cwd=cwd)
    assert result.returncode == 1, result.stderr
    assert _one_clear_line(result.stderr), result.stderr
    assert words in result.stderr, result.stderr
    assert json.loads(result.stdout)["error"]
    assert len(fake.requests) == 2  # malformed like a dropped stream: retried once


def test_delta_for_a_block_that_never_started(fake_provider, hermes_home, tmp_path):
    delta = {"type": "content_block_delta", "index": 7, "delta": {"type": "text_delta", "text": "x"}}
    _fails_clearly("anthropic", lambda: Malformed(after_chunks=2, data=_event("anthropic", delta)),
                   fake_provider, hermes_home, tmp_path, "content block 7, which never started")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_bytes_that_are_not_utf8(provider, fake_provider, hermes_home, tmp_path):
    if provider == "anthropic":
        data = (b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, '
                b'"delta": {"type": "text_delta", "text": "\xff\xfe"}}\n\n')
        after = 3  # message_start, ping, content_block_start
    else:
        data = b'data: {"choices": [{"index": 0, "delta": {"content": "\xff\xfe"}}]}\n\n'
        after = 1
    _fails_clearly(provider, lambda: Malformed(after_chunks=after, data=data),
                   fake_provider, hermes_home, tmp_path, "not UTF-8")


@pytest.mark.wire
@pytest.mark.parametrize("provider, style", [("anthropic", "openai"), ("openai", "openai"),
                                             ("openai", "deepseek")])
def test_usage_numbers_sent_as_strings_are_read(provider, style, hermes_home, tmp_path):
    """The SDKs read typed fields' strings as numbers; the fields they do not type
    (DeepSeek's `prompt_cache_hit_tokens`, llama.cpp's `timings`) stayed strings."""
    with FakeProvider(openai_usage_style=style) as fake:
        fake.script(Reply(text="priced", usage_as_text=True))
        result = hermes(["-q", "hi", "--json"], _env(provider, hermes_home, fake), cwd=tmp_path)
        sent = fake.last.usage
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["answer"] == "priced"
    usage = payload["usage"]
    assert sent is not None
    assert usage["output"] == sent.get("output_tokens", sent.get("completion_tokens"))
    prompt = sent.get("prompt_tokens") or sum(sent.get(key) or 0 for key in (
        "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    got = usage["uncached_input"] + (usage["cache_write"] or 0) + (usage["cache_read"] or 0)
    assert got == prompt > 0
    assert usage["cost_usd"] is not None and usage["cost_usd"] > 0  # priced with numbers


@pytest.mark.wire
def test_two_megabytes_of_streamed_arguments_finish(hermes_home, tmp_path):
    """A 2 MB tool call end to end: streamed, run, stored and sent back (the linear
    joining itself is checked in tests/providers/test_long_arguments.py)."""
    content = "0123456789abcdef" * (2_000_000 // 16)
    call = ToolCall("write_file", {"path": "big.txt", "content": content})
    (hermes_home / "config.yaml").write_text("context_windows: {claude-sonnet-5-5: 4000000}\n")
    with FakeProvider(context_window=4_000_000) as fake:
        fake.script(Reply(tool_calls=[call], arg_chunk=256), Reply(text="written"))
        result = hermes(["-q", "write it", "--json", "--yolo", "--model", "claude-sonnet-5-5"],
                        anthropic_env(hermes_home, fake), cwd=tmp_path, timeout=90)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["answer"] == "written"
    assert (tmp_path / "big.txt").read_text() == content
