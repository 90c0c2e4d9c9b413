"""The OpenAI Chat Completions wire format of the gateway (pure functions).

The last message (system/developer ones aside) must be a user message and is the turn's
text; `system`/`developer` messages become the session's ephemeral prompt layer. Earlier
user/assistant messages are the client's copy of the conversation: a named session
ignores them (the server keeps its history); a stateless client is matched to its session
by them (`history`, see gateway/transcripts.py). Content is a string or a list of text parts
(the new message may also hold `image_url` parts: gateway/images.py). Usage
follows OpenAI's convention: `prompt_tokens` includes cached tokens.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from agent.usage import Usage
from frontend.commands import valid_model

SYSTEM_ROLES = ("system", "developer")
MAX_SESSION_NAME = 200
#: model names a client may send: they reach the provider and the prompt's model line


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
    reasoning_effort: str | None = None
    history: tuple[tuple[str, str], ...] = ()  # visible (role, text) before the last message
    include_reasoning: bool = False  # send the thinking as `reasoning_content`
    images: tuple[str, ...] = ()  # the new message's image_url URLs (data: or http(s):)


REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


def error_body(message: str, etype: str, code: str | None = None,
               param: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error object."""
    return {"error": {"message": message, "type": etype, "param": param, "code": code}}


_SURROGATE = re.compile("[\ud800-\udfff]")


def parse_json(raw: bytes) -> dict[str, Any]:
    """The request body as a JSON object, or BadRequest saying what is wrong."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"the request body is not valid JSON ({exc})") from None
    except RecursionError:
        raise BadRequest("the request body is not valid JSON (nested too deeply)") from None
    if not isinstance(body, dict):
        raise BadRequest("the request body must be a JSON object")
    where = _lone_surrogate(body)
    if where is not None:  # JSON allows "\ud800"; no store, log or provider can keep it
        raise BadRequest(f"{where or 'a key'} holds a lone UTF-16 surrogate (\\ud800-\\udfff "
                         "without its pair), which is not Unicode text: send the character "
                         "itself, or its full surrogate pair", where or None)
    return body


def _lone_surrogate(body: dict[str, Any]) -> str | None:
    """Where the first string holding a lone surrogate is (`messages[0].content`; "" for
    a key), or None. Walked without recursion: parse_json caps the depth anyway."""
    stack: list[tuple[Any, str]] = [(body, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            if _SURROGATE.search(node):
                return path
        elif isinstance(node, dict):
            if any(_SURROGATE.search(key) for key in node):
                return ""
            stack.extend(reversed([(value, f"{path}.{key}" if path else key)
                                   for key, value in node.items()]))
        elif isinstance(node, list):
            stack.extend(reversed([(value, f"{path}[{n}]") for n, value in enumerate(node)]))
    return None


def _text(content: Any, where: str) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text":
                raise BadRequest(f"{where}: only text content parts are supported "
                                 '([{"type": "text", "text": "..."}])', where)
            if not isinstance(part.get("text"), str):
                raise BadRequest(f"{where}: a text part needs a string `text`", where)
            parts.append(part["text"])
        return "".join(parts)
    if content is None:
        return ""
    raise BadRequest(f"{where}: content must be a string or a list of text parts", where)


def _image_urls(content: Any, where: str) -> tuple[Any, tuple[str, ...]]:
    """(the content without its image_url parts, their URLs): OpenAI's
    {"type": "image_url", "image_url": {"url": ...}} (or the URL as a string)."""
    if not isinstance(content, list):
        return content, ()
    rest, urls = [], []
    for part in content:
        if not (isinstance(part, dict) and part.get("type") == "image_url"):
            rest.append(part)
            continue
        url = part.get("image_url")
        url = url.get("url") if isinstance(url, dict) else url
        if not isinstance(url, str) or not url.startswith(("data:image/", "http://", "https://")):
            raise BadRequest(f"{where}: an image_url part needs a data:image/... or http(s) "
                             "URL", where)
        urls.append(url)
    return rest, tuple(urls)


def parse_chat(body: dict[str, Any]) -> ChatRequest:
    """Validate a chat completion request body."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("`messages` must be a non-empty array", "messages")
    last: int | None = None  # the last message that is not a system message
    systems: list[str] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise BadRequest(f"messages[{index}] must be an object", f"messages[{index}]")
        if message.get("role") in SYSTEM_ROLES:
            systems.append(_text(message.get("content"), f"messages[{index}].content"))
        else:
            last = index
    text: str | None = None
    images: tuple[str, ...] = ()
    if last is not None and messages[last].get("role") == "user":
        where = f"messages[{last}].content"
        content, images = _image_urls(messages[last].get("content"), where)
        text = _text(content, where)
    if text is None or not (text.strip() or images):
        raise BadRequest("the last message must be a user message with text (the new message "
                         "of the conversation)", "messages")
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise BadRequest("`model` must be a string", "model")
    model = (model or "").strip() or None
    if model is not None and not valid_model(model):
        raise BadRequest("`model` is not a valid model name (letters, digits and ._:/@+-[])",
                         "model")
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise BadRequest("`stream` must be true or false", "stream")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise BadRequest("`stream_options` must be an object", "stream_options")
    user = body.get("user")
    effort = body.get("reasoning_effort")
    if effort is not None and effort not in REASONING_EFFORTS:
        raise BadRequest(f"`reasoning_effort` must be one of {', '.join(REASONING_EFFORTS)}",
                         "reasoning_effort")
    include = body.get("include_reasoning", False)
    if not isinstance(include, bool):
        raise BadRequest("`include_reasoning` must be true or false", "include_reasoning")
    return ChatRequest(
        include_reasoning=include,
        text=text,
        system="\n\n".join(systems) if systems else None,
        model=model,
        stream=stream is True,
        include_usage=options is not None and options.get("include_usage") is True,
        user=user if isinstance(user, str) and user else None,
        reasoning_effort=effort,
        history=_history(messages[:last] if last is not None else []),
        images=images,
    )


def _history(messages: list[dict[str, Any]]) -> tuple[tuple[str, str], ...]:
    """The user/assistant texts a client sent before its new message (other roles, empty
    texts and non-text parts skipped: they are the client's business, never ours)."""
    out = []
    for message in messages:
        role = message.get("role")
        if role not in ("user", "assistant"):
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content
                              if isinstance(p, dict) and isinstance(p.get("text"), str))
        if isinstance(content, str) and content.strip():  # empty: nothing to see or seed
            out.append((role, content))
    return tuple(out)


def session_name(header: str | None, user: str | None) -> str | None:
    """The client's session name: the X-Hermes-Session-Id header, else `user`. Printable
    ASCII only: it is sent back in a response header, which HTTP keeps to Latin-1."""
    name = (header or "").strip() or (user or "").strip()
    if not name:
        return None
    if len(name) > MAX_SESSION_NAME or not (name.isascii() and name.isprintable()):
        source = "X-Hermes-Session-Id" if (header or "").strip() else "`user`"
        raise BadRequest(f"the session id ({source}) must be 1-{MAX_SESSION_NAME} printable "
                         "ASCII characters", None if source != "`user`" else "user")
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


def completion(cid: str, model: str, answer: str, usage: Usage,  # noqa: PLR0913
               finish: str = "stop", reasoning: str | None = None) -> dict[str, Any]:
    """A non-streamed `chat.completion` object (`reasoning`: the thinking, as
    `message.reasoning_content`, only when the client asked for it)."""
    body: dict[str, Any] = {
        "id": cid, "object": "chat.completion", "created": int(time.time()), "model": model,
        "system_fingerprint": None,
        "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                     "message": {"role": "assistant", "content": answer, "refusal": None}}],
        "usage": usage_dict(usage),
    }
    if reasoning is not None:
        body["choices"][0]["message"]["reasoning_content"] = reasoning
    return body


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
