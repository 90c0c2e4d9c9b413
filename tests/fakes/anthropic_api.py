"""Fake Anthropic Messages API: validation, explicit prompt caching, diagnostics, SSE."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cache import FIVE_MINUTES, ONE_HOUR, Block, Prompt, canonical, make_block
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
from .thinking import ThinkingError
from .thinking import output_tokens as thinking_tokens
from .thinking import reply_blocks as thinking_blocks
from .thinking import stream_block as thinking_events
from .thinking import validate as validate_thinking

if TYPE_CHECKING:
    from .server import FakeProvider

MAX_BREAKPOINTS = 4


class ApiError(Exception):
    def __init__(self, status: int, message: str, etype: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.etype = etype


@dataclass
class Fingerprint:
    model: str
    tools: str
    system: str
    extras: str
    messages: list[str]


def sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def error_body(etype: str, message: str, request_id: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": etype, "message": message},
            "request_id": request_id}


def error_outcome(p: FakeProvider, rec: Record, status: int, message: str,
                  etype: str = "invalid_request_error",
                  retry_after: float | None = None) -> Outcome:
    rec.status = status
    rec.error = message
    headers = {"request-id": p.new_id("req_")}
    if retry_after is not None:
        headers["retry-after"] = format_seconds(retry_after)
    return Outcome(status, body=error_body(etype, message, headers["request-id"]),
                   headers=headers)


def format_seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


# ---------------------------------------------------------------- validation

def _content_list(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _ids(message: dict[str, Any], kind: str, key: str) -> list[str]:
    return [b.get(key) for b in _content_list(message)
            if isinstance(b, dict) and b.get("type") == kind]


def validate(body: dict[str, Any], need_max_tokens: bool = True) -> None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise ApiError(400, "model: Field required")
    if need_max_tokens and not isinstance(body.get("max_tokens"), int):
        raise ApiError(400, "max_tokens: Field required")
    if need_max_tokens and body["max_tokens"] < 0:
        raise ApiError(400, "max_tokens: Input should be greater than or equal to 0")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "messages: at least one message is required")
    for i, msg in enumerate(messages):
        role = msg.get("role") if isinstance(msg, dict) else None
        if role not in ("user", "assistant"):
            raise ApiError(400, f"messages.{i}.role: Input should be 'user' or 'assistant'")
        expected = "user" if i % 2 == 0 else "assistant"
        if role != expected:
            raise ApiError(400, f"messages.{i}: roles must alternate between \"user\" and "
                                f"\"assistant\", starting with \"user\"; found {role!r} "
                                f"where {expected!r} was expected")
        if not isinstance(msg.get("content"), str | list):
            raise ApiError(400, f"messages.{i}.content: Field required")
    _validate_tool_pairs(messages)


def _validate_tool_pairs(messages: list[dict[str, Any]]) -> None:
    for i, msg in enumerate(messages):
        if msg["role"] == "assistant":
            uses = _ids(msg, "tool_use", "id")
            following = messages[i + 1] if i + 1 < len(messages) else {}
            answered = set(_ids(following, "tool_result", "tool_use_id"))
            missing = [u for u in uses if u not in answered]
            if missing:
                raise ApiError(400, f"messages.{i}: tool_use ids were found without tool_result "
                                    f"blocks immediately after: {', '.join(missing)}. Each "
                                    "tool_use block must have a corresponding tool_result "
                                    "block in the next message.")
        else:
            previous = set(_ids(messages[i - 1], "tool_use", "id")) if i else set()
            unexpected = [r for r in _ids(msg, "tool_result", "tool_use_id")
                          if r not in previous]
            if unexpected:
                raise ApiError(400, f"messages.{i}: unexpected tool_use_id found in tool_result "
                                    f"blocks: {', '.join(map(str, unexpected))}. Each tool_result "
                                    "block must have a corresponding tool_use block in the "
                                    "previous message.")


# ---------------------------------------------------------------- prompt model

def extras_of(body: dict[str, Any]) -> str:
    """Parameters that invalidate the messages part of the cache (not tools/system)."""
    extra = {k: body[k] for k in ("tool_choice", "thinking") if body.get(k) is not None}
    return canonical(extra) if extra else ""


def build_blocks(body: dict[str, Any]) -> list[Block]:
    blocks = [make_block(tool, "tools") for tool in body.get("tools") or []]
    system = body.get("system")
    if isinstance(system, str) and system:
        blocks.append(make_block({"type": "text", "text": system}, "system"))
    elif isinstance(system, list):
        blocks.extend(make_block(part, "system") for part in system)
    extras = extras_of(body)
    for i, msg in enumerate(body["messages"]):
        content = msg["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for k, part in enumerate(parts or [[]]):
            block = make_block(part, "messages", i, role=msg["role"] if k == 0 else "")
            if i == 0 and k == 0:
                block.salt = extras
            blocks.append(block)
    return blocks


def ttl_of(marker: dict[str, Any]) -> float:
    return ONE_HOUR if marker.get("ttl") == "1h" else FIVE_MINUTES


def markers(body: dict[str, Any], prompt: Prompt) -> list[tuple[int, float]]:
    """(block index, ttl) of every cache_control marker, in prefix order."""
    marks = [(i, ttl_of(m)) for i, b in enumerate(prompt.blocks) for m in b.markers]
    top = body.get("cache_control")
    if isinstance(top, dict) and prompt.blocks:
        marks.append((len(prompt.blocks) - 1, ttl_of(top)))
    return marks


def breakpoints(marks: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Check the count and TTL order; return sorted unique (block index, ttl) breakpoints."""
    if len(marks) > MAX_BREAKPOINTS:
        raise ApiError(400, "A maximum of 4 blocks with cache_control may be provided. "
                            f"Found {len(marks)}.")
    shortest = None
    for index, ttl in marks:
        if shortest is not None and ttl > shortest:
            raise ApiError(400, f"Invalid cache_control: a breakpoint with ttl='1h' (block "
                                f"{index}) comes after a breakpoint with ttl='5m'. Entries with "
                                "a longer TTL must come before entries with a shorter TTL.")
        shortest = ttl if shortest is None else min(shortest, ttl)
    merged: dict[int, float] = {}
    for index, ttl in marks:
        merged[index] = max(ttl, merged.get(index, 0.0))
    return sorted(merged.items())


def prepare(p: FakeProvider, rec: Record) -> tuple[Prompt, list[tuple[int, float]]]:
    body = rec.body
    validate(body)
    try:
        validate_thinking(body)
    except ThinkingError as exc:
        raise ApiError(400, str(exc)) from None
    try:
        prompt = Prompt(body["model"], build_blocks(body))
    except ImageRefused as exc:
        raise ApiError(400, str(exc)) from None
    rec.prompt_tokens = prompt.total
    marks = markers(body, prompt)
    rec.breakpoints = len(marks)
    bps = breakpoints(marks)
    if prompt.total > p.context_window:
        raise ApiError(400, f"prompt is too long: {prompt.total} tokens > "
                            f"{p.context_window} maximum")
    return prompt, bps


def fingerprint(body: dict[str, Any], prompt: Prompt) -> Fingerprint:
    return Fingerprint(body["model"], prompt.section_hash("tools"), prompt.section_hash("system"),
                       extras_of(body), prompt.message_hashes())


def miss_reason(old: Fingerprint | None, new: Fingerprint) -> str | None:
    if old is None:
        return "previous_message_not_found"
    if old.model != new.model:
        return "model_changed"
    if old.tools != new.tools:
        return "tools_changed"
    if old.system != new.system:
        return "system_changed"
    if new.messages[:len(old.messages)] != old.messages:
        return "messages_changed"
    if old.extras != new.extras:
        return "unavailable"
    return None


def diagnose(p: FakeProvider, body: dict[str, Any], new: Fingerprint,
             missed: int) -> tuple[bool, dict[str, Any] | None]:
    """(include a `diagnostics` key?, cache_miss_reason or None)."""
    diag = body.get("diagnostics")
    if not isinstance(diag, dict):
        return False, None
    previous = diag.get("previous_message_id")
    if previous is None:
        return True, None
    kind = miss_reason(p.fingerprints.get(previous), new)
    if kind is None:
        return True, None
    reason: dict[str, Any] = {"type": kind}
    if kind != "unavailable":
        reason["cache_missed_input_tokens"] = missed
    return True, reason


# ---------------------------------------------------------------- responses

def authenticated(rec: Record) -> bool:
    """x-api-key, or `Authorization: Bearer` (what anthropic SDK 2.x sends for api_key)."""
    bearer = rec.headers.get("authorization", "")
    return bool(rec.headers.get("x-api-key")) or (
        bearer.startswith("Bearer ") and bool(bearer[7:].strip()))


def handle(p: FakeProvider, rec: Record) -> Outcome:
    if not authenticated(rec):
        return error_outcome(p, rec, 401, "x-api-key header is required",
                             "authentication_error")
    rec.stream = rec.body.get("stream") is True
    rec.model = str(rec.body.get("model") or "")
    item = p.next_item(rec)
    early = early_outcome(p, rec, item)
    if early is not None:
        return early
    try:
        prompt, bps = prepare(p, rec)
    except ApiError as exc:
        return error_outcome(p, rec, exc.status, exc.message, exc.etype)
    return answer(p, rec, item, prompt, bps)


def count_tokens(p: FakeProvider, rec: Record) -> Outcome:
    """POST /v1/messages/count_tokens (does not consume the script)."""
    if not authenticated(rec):
        return error_outcome(p, rec, 401, "x-api-key header is required",
                             "authentication_error")
    try:
        validate(rec.body, need_max_tokens=False)
    except ApiError as exc:
        return error_outcome(p, rec, exc.status, exc.message, exc.etype)
    prompt = Prompt(rec.body["model"], build_blocks(rec.body))
    rec.status, rec.prompt_tokens, rec.model = 200, prompt.total, rec.body["model"]
    return Outcome(200, body={"input_tokens": prompt.total})


def early_outcome(p: FakeProvider, rec: Record, item: Item) -> Outcome | None:
    if isinstance(item, Error) and (not rec.stream or item.after_chunks is None):
        return error_outcome(p, rec, item.status, item.error_message(), item.error_type(),
                             item.retry_after)
    if isinstance(item, Drop) and (not rec.stream or item.after_chunks <= 0):
        rec.status = 0
        return Outcome(0, drop_after=0)
    return None


def answer(p: FakeProvider, rec: Record, item: Item, prompt: Prompt,
           bps: list[tuple[int, float]]) -> Outcome:
    body = rec.body
    reply = item if isinstance(item, Reply) else Reply(text="ok")
    if body.get("max_tokens") == 0:
        # the API reference: "Set to `0` to populate the prompt cache without generating
        # a response" - the prompt is read/written and billed, nothing is generated
        reply = Reply(text="")
    minimum = p.anthropic_min_cache_tokens(body["model"])
    with p.lock:
        result = p.cache.anthropic(prompt, bps, minimum, p.clock.now(), p.prefill)
        rid = p.new_id("msg_")
        fp = fingerprint(body, prompt)
        include, reason = diagnose(p, body, fp, prompt.total - result.read)
        p.fingerprints[rid] = fp
    if p.prefill:  # the response begins once the prompt is processed
        time.sleep(p.prefill)
    usage = {
        "input_tokens": prompt.total - result.read - result.write,
        "cache_creation_input_tokens": result.write,
        "cache_read_input_tokens": result.read,
        "cache_creation": {"ephemeral_5m_input_tokens": result.write_5m,
                           "ephemeral_1h_input_tokens": result.write_1h},
        "output_tokens": reply.output_tokens(),
        "service_tier": "standard",
    }
    content = thinking_blocks(body, reply.thinking, reply.redacted)
    usage["output_tokens"] += thinking_tokens(content)
    if body.get("max_tokens") == 0:
        usage["output_tokens"] = 0
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        content.append({"type": "tool_use", "id": call.id or p.new_id("toolu_"),
                        "name": call.name, "input": call.arguments})
    message: dict[str, Any] = {
        "id": rid, "type": "message", "role": "assistant", "model": body["model"],
        "content": content, "stop_reason": ("max_tokens" if body.get("max_tokens") == 0
                                            else "tool_use" if reply.tool_calls else "end_turn"),
        "stop_sequence": None, "usage": usage,
    }
    if include:
        message["diagnostics"] = {"cache_miss_reason": reason} if reason else None
    rec.status, rec.usage, rec.response_id = 200, usage, rid
    rec.cache_read, rec.cache_write = result.read, result.write
    rec.miss_reason = reason["type"] if reason else None
    headers = {"request-id": p.new_id("req_")}
    if not rec.stream:
        return Outcome(200, body=message, headers=headers, delay=reply.delay)
    outcome = Outcome(200, events=stream_events(message, reply), headers=headers,
                      delay=reply.delay)
    if isinstance(item, Drop):
        outcome.drop_after = item.after_chunks
    elif isinstance(item, Malformed):
        outcome.events = outcome.events[:item.after_chunks] + [
            item.data or b"event: content_block_delta\ndata: {not json\n\n"]
    elif isinstance(item, Error):
        assert item.after_chunks is not None
        rec.error = item.error_message()
        outcome.events = outcome.events[:item.after_chunks] + [sse(error_body(
            item.error_type(), item.error_message(), headers["request-id"]))]
    return outcome


def stream_events(message: dict[str, Any], reply: Reply) -> list[bytes]:
    usage = as_text(message["usage"]) if reply.usage_as_text else message["usage"]
    start = dict(message, content=[], stop_reason=None,
                 usage=dict(usage, output_tokens=min(1, message["usage"]["output_tokens"])))
    events = [sse({"type": "message_start", "message": start}), sse({"type": "ping"})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            events.append(sse({"type": "content_block_start", "index": index,
                               "content_block": {"type": "text", "text": ""}}))
            for piece in split_text(block["text"], reply.chunks or 3):
                events.append(sse({"type": "content_block_delta", "index": index,
                                   "delta": {"type": "text_delta", "text": piece}}))
        elif block["type"] in ("thinking", "redacted_thinking"):
            pieces = split_text(block.get("thinking") or "", reply.chunks or 3)
            events.extend(sse(event) for event in thinking_events(index, block, pieces))
        else:
            events.append(sse({"type": "content_block_start", "index": index,
                               "content_block": dict(block, input={})}))
            for piece in split_arguments(json.dumps(block["input"]), reply):
                events.append(sse({"type": "content_block_delta", "index": index,
                                   "delta": {"type": "input_json_delta",
                                             "partial_json": piece}}))
        events.append(sse({"type": "content_block_stop", "index": index}))
    final_usage = {k: usage[k] for k in ("input_tokens", "cache_creation_input_tokens",
                                         "cache_read_input_tokens", "output_tokens")}
    events.append(sse({"type": "message_delta", "usage": final_usage,
                       "delta": {"stop_reason": message["stop_reason"],
                                 "stop_sequence": None}}))
    events.append(sse({"type": "message_stop"}))
    return events
