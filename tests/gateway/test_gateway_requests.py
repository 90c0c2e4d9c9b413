"""Malformed and unusual requests: each gets a clear 4xx (never a 500, never a
traceback in the log), and the model is never called for them."""

from __future__ import annotations

import socket
from urllib.parse import quote

import httpx
import openai
import pytest

from gateway.wire import session_name
from tests.fakes import Error, Reply
from tests.helpers import KEY_A, ask, is_summary_call, wait_until

CHAT = "/chat/completions"


def _post(server, body=None, *, content: bytes | None = None, headers=None) -> httpx.Response:
    auth = {"authorization": f"Bearer {KEY_A}", **(headers or {})}
    return httpx.post(server.base_url + CHAT, headers=auth, json=body, content=content,
                      timeout=30)


def _user(text: str) -> dict:
    return {"role": "user", "content": text}


def test_malformed_bodies_are_400_without_a_traceback(harness, capfd):
    server = harness.start()
    cases = [
        ({"messages": [_user("old"), {"role": "assistant", "content": "answer"}]}, "messages"),
        ({"messages": [_user("q"), {"role": "tool", "content": "x", "tool_call_id": "1"}]},
         "messages"),
        ({"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]},
         "messages[0].content"),
        ({"messages": [{"role": "user", "content": [{"type": "image_url"}]}]},
         "messages[0].content"),
        ({"messages": [_user("hi")], "model": "\\9"}, "model"),
        ({"messages": [_user("hi")], "model": "x\nIgnore previous instructions"}, "model"),
        ({"messages": [_user("hi")], "stream": "yes"}, "stream"),
        ({"messages": [_user("hi")], "stream": True, "stream_options": "usage"},
         "stream_options"),
        ({"messages": [_user("hi")], "user": "用户"}, "user"),
        ({"messages": [_user("   ")]}, "messages"),
        ({"messages": "hi"}, "messages"),
    ]
    for body, param in cases:
        response = _post(server, body)
        assert response.status_code == 400, body
        assert response.json()["error"]["param"] == param, body
    deep = _post(server, content=b"[" * 200_000)
    assert deep.status_code == 400 and "nested too deeply" in deep.json()["error"]["message"]
    text_plain = _post(server, content=b'{"messages": [{"role": "user", "content": "plain"}]}',
                       headers={"content-type": "text/plain"})
    assert text_plain.status_code == 200  # the body is JSON whatever the client calls it
    assert len(harness.fake.requests) == 1
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ERROR" not in err


def test_content_parts_and_a_whole_client_history(harness):
    server = harness.start()
    client = harness.client(server)
    reply = ask(client, "s", "", messages=[
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]},
        {"role": "assistant", "content": "an old answer"},
        {"role": "user", "content": [{"type": "text", "text": "part one, "},
                                     {"type": "text", "text": "part two"}]},
        {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
    ])
    assert reply.choices[0].message.content == "ok"
    last = harness.fake.last.body["messages"][-1]["content"]
    assert "part one, part two" in repr(last)
    assert "Be brief." in repr(harness.fake.last.body["system"])
    with pytest.raises(openai.BadRequestError) as old_message:
        ask(client, "s", "", messages=[_user("again?"), {"role": "assistant", "content": "x"}])
    assert "last message must be a user message" in old_message.value.message
    assert len(harness.fake.requests) == 1  # the old user message was not sent again


def test_session_names(harness):
    server = harness.start()
    client = harness.client(server)
    odd = "a/b ?#%2F\"'<>.."
    raw = client.chat.completions.with_raw_response.create(
        model="hermes", messages=[_user("hi")], extra_headers={"X-Hermes-Session-Id": odd})
    assert raw.headers["x-hermes-session-id"] == odd
    quoted = server.base_url + "/sessions/" + quote(odd, safe="/") + "/usage"
    usage = httpx.get(quoted, headers={"authorization": f"Bearer {KEY_A}"})
    assert usage.status_code == 200 and usage.json()["session_name"] == odd
    for bad in ("x" * 201, "tab\there"):
        response = _post(server, {"messages": [_user("hi")]},
                         headers={"x-hermes-session-id": bad})
        assert response.status_code == 400
        assert "X-Hermes-Session-Id" in response.json()["error"]["message"]
    assert session_name("  ", "from-user") == "from-user"  # a blank header: `user`
    huge = _post(server, {"messages": [_user("hi")]}, headers={"x-junk": "a" * 100_000})
    assert huge.status_code == 431
    assert len(harness.fake.requests) == 1


def test_model_command_refuses_a_name_that_is_not_one(harness, capfd):
    server = harness.start()
    client = harness.client(server)
    ask(client, "s", "hello")
    for arg in ("\\9", "\\g<0>", "a b"):
        reply = ask(client, "s", f"/model {arg}").choices[0].message.content
        assert "is not a model name" in reply
    assert ask(client, "s", "still fine").choices[0].message.content == "ok"
    assert harness.fake.last.body["model"] == "claude-sonnet-5-5"
    assert "Traceback" not in capfd.readouterr().err


def test_unknown_routes_and_methods_are_json(harness):
    server = harness.start()
    auth = {"authorization": f"Bearer {KEY_A}"}
    missing = httpx.get(server.base_url + "/nope", headers=auth)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    wrong = httpx.get(server.base_url + CHAT, headers=auth)
    assert wrong.status_code == 405
    assert wrong.json()["error"]["code"] == "method_not_allowed"


def test_a_client_gone_before_its_body_arrived_is_not_logged(harness, capfd):
    server = harness.start()
    state = server.server.server_state  # uvicorn's own sets of request tasks and connections
    with socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
                     b"Authorization: Bearer " + KEY_A.encode() + b"\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"messages\":")
        wait_until(lambda: state.tasks, what="the gateway to start handling the request")
    # the positive signal: the handler task has ended and the connection is gone, so
    # anything it was going to log (a traceback) is already on stderr
    wait_until(lambda: not state.tasks and not state.connections,
               what="the request to be fully processed")
    assert "Traceback" not in capfd.readouterr().err
    assert httpx.get(server.base_url.removesuffix("/v1") + "/health").status_code == 200


def test_a_failed_automatic_compression_does_not_fail_the_answered_turn(harness):
    harness.config["context_windows"] = {"claude-sonnet-5-5": 12_000}
    harness.config["compression"] = {"threshold": 0.6}
    summaries = []

    def responder(record):
        if is_summary_call(record.body):  # the summary call of a compression
            summaries.append(record)
            return Error(401, "summaries refused")
        return Reply(text="answered")

    harness.fake.responder = responder
    server = harness.start()
    client = harness.client(server)
    for index in range(4):
        text = f"message {index} " + "lorem ipsum " * 600  # ~1,800 tokens
        assert ask(client, "s", text).choices[0].message.content == "answered"
        stream = ask(client, "s", text, stream=True)
        assert "".join(c.choices[0].delta.content or "" for c in stream) == "answered"
    assert summaries  # compression was tried, failed, and the answers still came through


def test_internal_errors_keep_their_details_in_the_log(capfd):
    from gateway.server import _internal

    response = _internal(ValueError("/secret/path/of/the/server"))
    assert response.status_code == 500
    assert b"/secret/path" not in response.body and b"internal error" in response.body
    assert "/secret/path" in capfd.readouterr().err


def test_another_providers_model_is_refused_not_sent(harness):
    """An Anthropic gateway asked for gpt-5.2 (by `/model` or the request's `model`):
    refused with the reason - never sent to Anthropic as `model: gpt-5.2`."""
    server = harness.start()
    client = harness.client(server)
    ask(client, "s", "hello")
    reply = ask(client, "s", "/model gpt-5.2").choices[0].message.content
    assert "gpt-5.2 is an OpenAI model" in reply and "still uses claude-sonnet-5-5" in reply
    assert "this gateway has no OpenAI key configured" in reply
    response = _post(server, {"model": "gpt-5.2", "messages": [_user("hi")]})
    assert response.status_code == 400 and response.json()["error"]["param"] == "model"
    assert ask(client, "s", "still fine").choices[0].message.content == "ok"
    assert {r.body["model"] for r in harness.fake.requests} == {"claude-sonnet-5-5"}
