"""Fake OpenAI Chat Completions API: validation, automatic prefix caching, usage styles."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from .cache import FIVE_MINUTES, ONE_DAY, Block, Prompt, make_block
from .images import ImageRefused
from .script import (
    Drop,
    Error,
    Item,
    Malformed,
    Outcome,
    Record,
    Reply,
    as_text,
    split_arguments,
    split_text,
)

if TYPE_CHECKING:
    from .server import FakeProvider

USAGE_STYLES = ("openai", "openrouter", "deepseek", "llamacpp", "none")
MAX_BREAKPOINTS = 4
ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error",
               403: "permission_error", 404: "not_found_error", 429: "rate_limit_exceeded"}
ERROR_CODES = {401: "invalid_api_key", 429: "rate_limit_exceeded"}


class ApiError(Exception):
    def __init__(self, status: int, message: str, code: str | None = None,
                 param: str | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.code, self.param = status, message, code, param


def error_body(message: str, etype: str, code: str | None, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": etype, "param": param, "code": code}}


def error_outcome(p: FakeProvider, rec: Record, status: int, message: str, *,
                  etype: str | None = None, code: str | None = None,
                  param: str | None = None, retry_after: float | None = None) -> Outcome:
    rec.status = status
    rec.error = message
    headers = {"x-request-id": p.new_id("req_")}
    if retry_after is not None:
        headers["retry-after"] = str(int(retry_after)) if float(retry_after).is_integer() \
            else str(retry_after)
    etype = etype or ERROR_TYPES.get(status, "server_error")
    code = code if code is not None else ERROR_CODES.get(status)
    return Outcome(status, body=error_body(message, etype, code, param), headers=headers)


def chunk(event: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(event)}\n\n".encode()


# ---------------------------------------------------------------- validation

def validate(body: dict[str, Any]) -> None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise ApiError(400, "you must provide a model parameter", param="model")
    if "max_tokens" in body and body["model"].startswith(("gpt-5", "o1", "o3", "o4")):
        raise ApiError(400, "Unsupported parameter: 'max_tokens' is not supported with this "
                            "model. Use 'max_completion_tokens' instead.", param="max_tokens")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "Invalid 'messages': empty array. Expected an array with minimum "
                            "length 1.", param="messages")
    pending: list[str] = []
    for i, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role not in ("system", "developer", "user", "assistant", "tool"):
            raise ApiError(400, f"Invalid value for 'messages[{i}].role': {role!r}.",
                           param=f"messages.[{i}].role")
        if role == "tool":
            parts = msg.get("content") if isinstance(msg.get("content"), list) else []
            if any(isinstance(x, dict) and x.get("type") != "text" for x in parts):
                raise ApiError(400, f"Invalid 'messages[{i}]': a tool message's content "
                                    "parts must be text.", param=f"messages.[{i}].content")
            tool_id = msg.get("tool_call_id")
            if tool_id not in pending:
                raise ApiError(400, f"Invalid parameter: messages[{i}] with role 'tool' "
                                    f"(tool_call_id {tool_id!r}) must be a response to a "
                                    "preceding message with 'tool_calls'.",
                               param=f"messages.[{i}].role")
            pending.remove(tool_id)
            continue
        if pending:
            raise _unanswered(pending, i)
        if role == "assistant":
            pending = [c.get("id") for c in msg.get("tool_calls") or []]
    if pending:
        raise _unanswered(pending, len(messages))


def _unanswered(pending: list[str], index: int) -> ApiError:
    return ApiError(400, "An assistant message with 'tool_calls' must be followed by tool "
                         "messages responding to each 'tool_call_id'. The following "
                         f"tool_call_ids did not have response messages: {', '.join(pending)}",
                    param=f"messages.[{index}]")


# ---------------------------------------------------------------- prompt model

def build_blocks(body: dict[str, Any]) -> list[Block]:
    blocks = [make_block(tool, "tools") for tool in body.get("tools") or []]
    for i, msg in enumerate(body["messages"]):
        base = {k: v for k, v in msg.items() if k not in ("content", "tool_calls")}
        content = msg.get("content")
        if isinstance(content, list) and content:
            blocks.append(make_block(dict(base, content=content[:1]), "messages", i))
            blocks.extend(make_block(part, "messages", i) for part in content[1:])
        else:
            blocks.append(make_block(dict(base, content=content), "messages", i))
        blocks.extend(make_block(call, "messages", i) for call in msg.get("tool_calls") or [])
    return blocks


def prepare(p: FakeProvider, rec: Record) -> Prompt:
    body = rec.body
    validate(body)
    try:
        prompt = Prompt(body["model"], build_blocks(body))
    except ImageRefused as exc:
        raise ApiError(400, f"Invalid image: {exc}", code="invalid_image") from None
    rec.prompt_tokens = prompt.total
    rec.breakpoints = sum(len(b.markers) for b in prompt.blocks)
    if rec.breakpoints > MAX_BREAKPOINTS:
        raise ApiError(400, "A maximum of 4 blocks with cache_control may be provided. "
                            f"Found {rec.breakpoints}.")
    if prompt.total > p.context_window:
        raise ApiError(400, f"This model's maximum context length is {p.context_window} "
                            f"tokens. However, your messages resulted in {prompt.total} "
                            "tokens. Please reduce the length of the messages.",
                       code="context_length_exceeded", param="messages")
    return prompt


def usage_for(style: str, total: int, cached: int, write: int,
              out: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(usage dict, extra top-level response fields) for a usage style."""
    usage: dict[str, Any] = {"prompt_tokens": total, "completion_tokens": out,
                             "total_tokens": total + out}
    extra: dict[str, Any] = {}
    if style == "openai":
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    elif style == "openrouter":
        usage["prompt_tokens_details"] = {"cached_tokens": cached, "cache_write_tokens": write}
    elif style == "deepseek":
        usage["prompt_cache_hit_tokens"] = cached
        usage["prompt_cache_miss_tokens"] = total - cached
    elif style == "llamacpp":
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
        extra["timings"] = {"cache_n": cached, "prompt_n": total - cached, "predicted_n": out}
    return usage, extra


# ---------------------------------------------------------------- responses

def handle(p: FakeProvider, rec: Record) -> Outcome:
    auth = rec.headers.get("authorization", "")
    if not auth.startswith("Bearer ") or not auth[7:].strip():
        return error_outcome(p, rec, 401, "You didn't provide an API key. You need to provide "
                                          "your API key in an Authorization header using "
                                          "Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")
    rec.stream = rec.body.get("stream") is True
    rec.model = str(rec.body.get("model") or "")
    item = p.next_item(rec)
    if isinstance(item, Error) and (not rec.stream or item.after_chunks is None):
        return error_outcome(p, rec, item.status, item.error_message(), etype=item.type,
                             retry_after=item.retry_after)
    if isinstance(item, Drop) and (not rec.stream or item.after_chunks <= 0):
        rec.status = 0
        return Outcome(0, drop_after=0)
    try:
        prompt = prepare(p, rec)
    except ApiError as exc:
        return error_outcome(p, rec, exc.status, exc.message, code=exc.code, param=exc.param)
    return answer(p, rec, item, prompt)


def answer(p: FakeProvider, rec: Record, item: Item, prompt: Prompt) -> Outcome:
    body = rec.body
    reply = item if isinstance(item, Reply) else Reply(text="ok")
    ttl = ONE_DAY if body.get("prompt_cache_retention") == "24h" else FIVE_MINUTES
    store = ("openai", body["model"], body.get("prompt_cache_key"))
    with p.lock:
        cached, write = p.cache.automatic(store, prompt, min_tokens=p.openai_min_cache_tokens,
                                          step=p.openai_cache_step, ttl=ttl, now=p.clock.now())
        rid = p.new_id("chatcmpl-")
    usage, extra = usage_for(p.openai_usage_style, prompt.total, cached, write,
                             reply.output_tokens())
    streamed_usage = (body.get("stream_options") or {}).get("include_usage")
    rec.status, rec.response_id = 200, rid
    rec.usage = usage if streamed_usage or not rec.stream else None
    rec.cache_read, rec.cache_write = cached, write
    calls = [{"id": c.id or p.new_id("call_"), "type": "function",
              "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
             for c in reply.tool_calls]
    finish = "tool_calls" if calls else "stop"
    head = {"id": rid, "created": int(time.time()), "model": body["model"],
            "system_fingerprint": "fp_fake"}
    headers = {"x-request-id": p.new_id("req_")}
    if not rec.stream:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None,
                                   "refusal": None}
        if calls:
            message["tool_calls"] = calls
        response = dict(head, object="chat.completion", usage=usage, **extra,
                        choices=[{"index": 0, "message": message, "finish_reason": finish,
                                  "logprobs": None}])
        return Outcome(200, body=response, headers=headers, delay=reply.delay)
    final = dict(usage=usage, **extra) if streamed_usage else None
    if final is not None and reply.usage_as_text:
        final = as_text(final)
    events = stream_chunks(dict(head, object="chat.completion.chunk"), reply, calls, finish,
                           final)
    outcome = Outcome(200, events=events, headers=headers, delay=reply.delay)
    if isinstance(item, Drop):
        outcome.drop_after = item.after_chunks
    elif isinstance(item, Malformed):
        outcome.events = outcome.events[:item.after_chunks] + [
            item.data or b"data: {not json\n\n"]
    elif isinstance(item, Error):
        assert item.after_chunks is not None
        rec.error = item.error_message()
        err = error_body(item.error_message(), item.type or ERROR_TYPES.get(item.status,
                         "server_error"), ERROR_CODES.get(item.status))
        outcome.events = events[:item.after_chunks] + [chunk(err)]
    return outcome


def stream_chunks(head: dict[str, Any], reply: Reply, calls: list[dict[str, Any]],
                  finish: str, final: dict[str, Any] | None) -> list[bytes]:
    def one(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        event = dict(head, choices=[{"index": 0, "delta": delta, "logprobs": None,
                                     "finish_reason": finish_reason}])
        if final is not None:
            event["usage"] = None
        return chunk(event)

    events = [one({"role": "assistant", "content": "", "refusal": None})]
    for piece in split_text(reply.text, reply.chunks or 3):
        events.append(one({"content": piece}))
    for index, call in enumerate(calls):
        events.append(one({"tool_calls": [{
            "index": index, "id": call["id"], "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        for piece in split_arguments(call["function"]["arguments"], reply):
            events.append(one({"tool_calls": [{"index": index,
                                               "function": {"arguments": piece}}]}))
    events.append(one({}, finish))
    if final is not None:
        events.append(chunk(dict(head, choices=[], **final)))
    events.append(b"data: [DONE]\n\n")
    return events
