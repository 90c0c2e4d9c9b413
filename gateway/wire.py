"""The OpenAI Chat Completions wire format of the gateway (pure functions).

The server keeps each session's history, so a request carries only the new message:
the LAST user message of `messages` is the turn's text; `system`/`developer` messages
become the session's ephemeral prompt layer; earlier user/assistant messages are
ignored. Usage follows OpenAI's convention: `prompt_tokens` includes cached tokens.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from agent.usage import Usage

SYSTEM_ROLES = ("system", "developer")
MAX_SESSION_NAME = 200


class BadRequest(Exception):
    """A request the gateway cannot serve; `message` says what to fix."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


@dataclass(frozen=True)
class ChatRequest:
    """The parts of a chat completion request the gateway uses."""

    text: str
    system: str | None
    model: str | None
    stream: bool
    include_usage: bool
    user: str | None


def error_body(message: str, etype: str, code: str | None = None,
               param: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error object."""
    return {"error": {"message": message, "type": etype, "param": param, "code": code}}


def parse_json(raw: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or BadRequest saying what is wrong."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the request body is not valid JSON ({exc})") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    return body


def _text(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text":
                raise BadRequest(f"{where}: only text content parts are supported", where)
            parts.append(str(part.get("text") or ""))
        return "".join(parts)
    if content is None:
        return ""
    raise BadRequest(f"{where}: content must be a string or a list of text parts", where)


def parse_chat(body: dict[str, Any]) -> ChatRequest:
    """Validate a chat completion request body."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("`messages` must be a non-empty array", "messages")
    text: str | None = None
    systems: list[str] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise BadRequest(f"messages[{index}] must be an object", f"messages[{index}]")
        role = message.get("role")
        if role in SYSTEM_ROLES:
            systems.append(_text(message.get("content"), f"messages[{index}].content"))
        elif role == "user":
            text = _text(message.get("content"), f"messages[{index}].content")
    if text is None or not text.strip():
        raise BadRequest("`messages` must contain a user message with text: the server keeps "
                         "the history, send only the new message", "messages")
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise BadRequest("`model` must be a string", "model")
    user = body.get("user")
    options = body.get("stream_options") or {}
    return ChatRequest(
        text=text,
        system="\n\n".join(systems) if systems else None,
        model=model,
        stream=body.get("stream") is True,
        include_usage=isinstance(options, dict) and options.get("include_usage") is True,
        user=user if isinstance(user, str) and user else None,
    )


def session_name(header: str | None, user: str | None) -> str | None:
    """The client's session name: the X-Hermes-Session-Id header, else `user`."""
    name = (header or user or "").strip()
    if not name:
        return None
    if len(name) > MAX_SESSION_NAME or not name.isprintable():
        raise BadRequest(f"the session id must be 1-{MAX_SESSION_NAME} printable characters")
    return name


def new_completion_id() -> str:
    return "chatcmpl-" + secrets.token_hex(12)


def usage_dict(usage: Usage) -> dict[str, Any]:
    """Usage of a turn, summed over its calls; prompt_tokens includes cached tokens."""
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.output,
        "total_tokens": usage.prompt_tokens + usage.output,
        "prompt_tokens_details": {
            "cached_tokens": usage.cache_read if usage.cache_known else None,
            "cache_write_tokens": usage.cache_write,
        },
    }


def completion(cid: str, model: str, answer: str, usage: Usage,
               finish: str = "stop") -> dict[str, Any]:
    """A non-streamed `chat.completion` object."""
    return {
        "id": cid, "object": "chat.completion", "created": int(time.time()), "model": model,
        "system_fingerprint": None,
        "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                     "message": {"role": "assistant", "content": answer, "refusal": None}}],
        "usage": usage_dict(usage),
    }


def chunk(cid: str, model: str, delta: dict[str, Any], finish: str | None = None, *,
          with_usage_field: bool = False) -> bytes:
    """One `chat.completion.chunk` SSE event."""
    event: dict[str, Any] = {
        "id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
        "model": model, "system_fingerprint": None,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    if with_usage_field:
        event["usage"] = None
    return sse(event)


def usage_chunk(cid: str, model: str, usage: Usage) -> bytes:
    """The last chunk before [DONE] when `stream_options.include_usage` is set."""
    return sse({"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                "model": model, "system_fingerprint": None, "choices": [],
                "usage": usage_dict(usage)})


def sse(event: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n\n"


DONE = b"data: [DONE]\n\n"
