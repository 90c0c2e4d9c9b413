"""The access log of a real server driven by the real `openai` client (wire tier)."""

from __future__ import annotations

import json
import time

import httpx
import openai
import pytest

from gateway.auth import owner_id
from tests.fakes import Reply
from tests.helpers import KEY_A

SECRET_QUESTION = "the launch code is swordfish"
SECRET_ANSWER = "noted: the code is in the vault"


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_one_content_free_line_per_request(harness, tmp_path):
    path = tmp_path / "access.log"
    server = harness.start(access_log=str(path))
    harness.fake.responder = lambda rec: Reply(text=SECRET_ANSWER)
    client = harness.client(server)
    messages = [{"role": "system", "content": "be brief"},
                {"role": "user", "content": SECRET_QUESTION}]
    raw = client.chat.completions.with_raw_response.create(model="hermes", messages=messages)
    messages += [{"role": "assistant", "content": SECRET_ANSWER},
                 {"role": "user", "content": SECRET_QUESTION + " again"}]
    stream = client.chat.completions.create(model="hermes", messages=messages, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    stranger = harness.client(server, "wrong-key-0123456789")
    with pytest.raises(openai.AuthenticationError):
        stranger.models.list()
    httpx.get(server.base_url.removesuffix("/v1") + "/health", timeout=10)
    client.close()
    stranger.close()  # no keep-alive connection holds the shutdown up
    harness.stop_all()  # lines are written when each response ends; the file is closed
    text = path.read_text(encoding="utf-8")
    for secret in (SECRET_QUESTION, SECRET_ANSWER, "swordfish", "be brief", KEY_A):
        assert secret not in text
    lines = _lines(path)
    assert [(line["path"], line["status"]) for line in lines] == [
        ("/v1/chat/completions", 200), ("/v1/chat/completions", 200), ("/v1/models", 401)]
    first, second, denied = lines
    stored = raw.headers["x-hermes-stored-session-id"]
    for line in (first, second):
        assert line["key"] == owner_id(KEY_A)[:12]
        assert line["session"] == raw.headers["x-hermes-session-id"]
        assert line["stored_session"] == stored and line["model"] == "claude-sonnet-5-5"
        assert line["prompt_tokens"] > 0 and line["output_tokens"] > 0
        assert line["cost_usd"] > 0 and line["duration_ms"] > 0
        assert line["ts"].endswith("Z") and line["method"] == "POST"
    assert first["cache_read_share"] == 0 and second["cache_read_share"] > 0.5  # streamed too
    assert second["cached_tokens"] == harness.fake.last.cache_read
    assert denied["key"] is None and denied["session"] is None


def test_a_flood_is_bounded_and_counted(harness, tmp_path):
    path = tmp_path / "access.log"
    server = harness.start(access_log=str(path), access_log_rate=2)
    bad = {"authorization": "Bearer wrong-key-0123456789"}
    began = time.monotonic()
    with httpx.Client(timeout=10) as http:
        for _ in range(60):
            assert http.get(server.base_url + "/models", headers=bad).status_code == 401
    elapsed = time.monotonic() - began
    harness.stop_all()
    lines = _lines(path)
    plain = [line for line in lines if "event" not in line]
    summaries = [line for line in lines if line.get("event") == "suppressed"]
    assert len(plain) <= 4 + 2 * elapsed + 1  # burst + rate x time
    assert len(plain) + sum(s["lines"] for s in summaries) == 60  # every request counted
    assert summaries and all(s["statuses"] == {"401": s["lines"]} for s in summaries)
    assert len(summaries) <= elapsed + 2
