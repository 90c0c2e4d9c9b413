"""Fake OpenAI Responses API (`POST /v1/responses`, streamed and not).

The prompt is tools -> instructions -> input items, one block per content part (and per
function call, function call output, reasoning item). gpt-5.6+ follows the explicit
cache rules of responses_rules.py; earlier models cache automatically as on Chat
Completions (writes free, not reported) and refuse the 5.6-only parameters with a 400.
Reasoning models return a reasoning item first; with `include:
["reasoning.encrypted_content"]` it carries encrypted content, which is the only way to
send it back when `store` is false. A function call whose reasoning item is missing from
a later input is refused, as OpenAI does.
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .cache import FIVE_MINUTES, ONE_DAY, Prompt
from .images import ImageRefused
from .openai_api import ApiError, error_outcome
from .responses_rules import (
    TTLS,
    Fingerprint,
    block,
    cache_56,
    diagnose,
    fingerprint,
    is_reasoning_model,
    supports_breakpoints,
)
from .script import Drop, Error, Item, Outcome, Record, Reply, split_text

if TYPE_CHECKING:
    from .server import FakeProvider

ENCRYPTED = "reasoning.encrypted_content"


@dataclass
class ResponsesState:
    """What the fake remembers between Responses requests."""

    stored: dict[str, Fingerprint] = field(default_factory=dict)  # store=true responses
    encrypted: set[str] = field(default_factory=set)
    reasoning_ids: set[str] = field(default_factory=set)  # items of stored responses
    call_reasoning: dict[str, str] = field(default_factory=dict)  # call_id -> reasoning id

    def clear(self) -> None:
        self.stored.clear()
        self.encrypted.clear()
        self.reasoning_ids.clear()
        self.call_reasoning.clear()


# ---------------------------------------------------------------- validation and blocks

def _items(body: dict[str, Any]) -> list[dict[str, Any]]:
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"role": "user", "content": raw}]
    if not isinstance(raw, list) or not raw:
        raise ApiError(400, "Missing required parameter: 'input'.", param="input")
    return raw


def _check_options(body: dict[str, Any], items: list[dict[str, Any]]) -> None:
    model = body["model"]
    options = body.get("prompt_cache_options")
    marked = '"prompt_cache_breakpoint"' in json.dumps(items)
    if not supports_breakpoints(model):
        for name, present in (("prompt_cache_options", options is not None),
                              ("prompt_cache_breakpoint", marked)):
            if present:
                raise ApiError(400, f"Unsupported parameter: '{name}' is not supported with "
                                    f"this model.", param=name)
        if body.get("prompt_cache_retention") == "in_memory" and model.startswith("gpt-5.5"):
            raise ApiError(400, "Invalid value: 'in_memory'. Supported values are: '24h'.",
                           param="prompt_cache_retention")
        return
    options = options or {}
    if options.get("mode", "implicit") not in ("implicit", "explicit"):
        raise ApiError(400, "Invalid value for 'prompt_cache_options.mode'.",
                       param="prompt_cache_options.mode")
    if options.get("ttl", "30m") not in TTLS:
        raise ApiError(400, "Invalid value for 'prompt_cache_options.ttl': supported values "
                            "are '30m' and '12h'.", param="prompt_cache_options.ttl")


def _check_items(state: ResponsesState, body: dict[str, Any],
                 items: list[dict[str, Any]]) -> None:
    calls: set[str] = set()
    reasoning_sent = {i.get("id") for i in items if i.get("type") == "reasoning"}
    for index, item in enumerate(items):
        kind = item.get("type", "message")
        if kind == "reasoning":
            enc = item.get("encrypted_content")
            if enc is not None and enc not in state.encrypted:
                raise ApiError(400, "The encrypted content for item "
                                    f"{item.get('id')} could not be verified.",
                               param=f"input[{index}]")
            if enc is None and item.get("id") not in state.reasoning_ids:
                raise ApiError(400, f"Item with id '{item.get('id')}' not found. Items are "
                                    "not persisted when `store` is set to false. Try again "
                                    "with `store` set to true, or remove this item from your "
                                    "input.", param="input")
        elif kind == "function_call":
            calls.add(item.get("call_id"))
            needed = state.call_reasoning.get(item.get("call_id"))
            if needed and needed not in reasoning_sent:
                raise ApiError(400, f"Item '{item.get('call_id')}' of type 'function_call' "
                                    f"was provided without its required 'reasoning' item: "
                                    f"'{needed}'.", param="input")
        elif kind == "function_call_output" and item.get("call_id") not in calls:
            raise ApiError(400, "No tool call found for function call output with call_id "
                                f"{item.get('call_id')}.", param="input")


def build_blocks(body: dict[str, Any], items: list[dict[str, Any]]) -> list:
    blocks = [block(tool, "tools") for tool in body.get("tools") or []]
    if body.get("instructions"):
        blocks.append(block({"instructions": body["instructions"]}, "system"))
    for i, item in enumerate(items):
        content = item.get("content") if "role" in item else item.get("output")
        role = str(item.get("role") or item.get("type") or "")
        if isinstance(content, list) and content:
            head = {k: v for k, v in item.items() if k not in ("content", "output")}
            blocks.append(block(dict(head, part=content[0]), "input", i, role))
            blocks.extend(block(part, "input", i) for part in content[1:])
        else:
            blocks.append(block(item, "input", i, role))
    return blocks


# ---------------------------------------------------------------- the handler

def handle(p: FakeProvider, rec: Record) -> Outcome:
    auth = rec.headers.get("authorization", "")
    if not auth.startswith("Bearer ") or not auth[7:].strip():
        return error_outcome(p, rec, 401, "You didn't provide an API key.")
    body = rec.body
    rec.stream = body.get("stream") is True
    rec.model = str(body.get("model") or "")
    options = body.get("prompt_cache_options") or {}
    prewarm = options.get("prewarm") is True
    item: Item = Reply(text="") if prewarm else p.next_item(rec)
    if isinstance(item, Error):
        return error_outcome(p, rec, item.status, item.error_message(), etype=item.type,
                             retry_after=item.retry_after)
    if isinstance(item, Drop):
        rec.status = 0
        return Outcome(0, drop_after=0)
    state: ResponsesState = p.responses
    try:
        if not rec.model:
            raise ApiError(400, "Missing required parameter: 'model'.", param="model")
        items = _items(body)
        _check_options(body, items)
        _check_items(state, body, items)
        prompt = Prompt(rec.model, build_blocks(body, items))
    except ImageRefused as exc:
        return error_outcome(p, rec, 400, f"Invalid image: {exc}", code="invalid_image")
    except ApiError as exc:
        return error_outcome(p, rec, exc.status, exc.message, code=exc.code, param=exc.param)
    rec.prompt_tokens = prompt.total
    rec.breakpoints = sum(len(b.markers) for b in prompt.blocks)
    if prompt.total > p.context_window:
        return error_outcome(p, rec, 400, "Your input exceeds the context window of this "
                                          "model.", code="context_length_exceeded")
    reply = item if isinstance(item, Reply) else Reply(text="ok")
    return answer(p, rec, reply, prompt, prewarm)


def _cache(p: FakeProvider, body: dict[str, Any], prompt: Prompt) -> tuple[int, dict]:
    """(read, write details) for this request under its model's rules."""
    store = ("openai", body["model"], body.get("prompt_cache_key"))
    now = p.clock.now()
    if supports_breakpoints(body["model"]):
        options = body.get("prompt_cache_options") or {}
        with p.lock:
            got = cache_56(p.cache, store, prompt, mode=options.get("mode", "implicit"),
                           ttl=options.get("ttl", "30m"),
                           min_tokens=p.openai_min_cache_tokens, now=now)
        return got.read, {"ttl_30m_tokens": got.write_30m, "ttl_12h_tokens": got.write_12h}
    ttl = ONE_DAY if body.get("prompt_cache_retention") == "24h" else FIVE_MINUTES
    with p.lock:
        read, _ = p.cache.automatic(store, prompt, min_tokens=p.openai_min_cache_tokens,
                                    step=p.openai_cache_step, ttl=ttl, now=now)
    return read, {}


def _reasoning_item(p: FakeProvider, body: dict[str, Any], reply: Reply) -> dict | None:
    effort = (body.get("reasoning") or {}).get("effort")
    if not is_reasoning_model(body["model"]) or effort == "none":
        return None
    rid = p.new_id("rs_")
    text = reply.thinking if reply.thinking is not None else f"Thinking about {rid}."
    summary = [{"type": "summary_text", "text": text}] \
        if (body.get("reasoning") or {}).get("summary") else []
    out: dict[str, Any] = {"type": "reasoning", "id": rid, "summary": summary}
    if ENCRYPTED in (body.get("include") or []):
        out["encrypted_content"] = "enc:" + base64.b64encode(f"{rid}:{text}".encode()).decode()
    return out


def answer(p: FakeProvider, rec: Record, reply: Reply, prompt: Prompt,
           prewarm: bool) -> Outcome:
    body = rec.body
    state: ResponsesState = p.responses
    read, details = _cache(p, body, prompt)
    write = sum(details.values())
    rid = p.new_id("resp_")
    output: list[dict[str, Any]] = []
    reasoning = None if prewarm else _reasoning_item(p, body, reply)
    if reasoning is not None:
        output.append(reasoning)
        if reasoning.get("encrypted_content"):
            state.encrypted.add(reasoning["encrypted_content"])
    if not prewarm and reply.text:
        output.append({"type": "message", "id": p.new_id("msg_"), "role": "assistant",
                       "status": "completed", "content": [
                           {"type": "output_text", "text": reply.text, "annotations": []}]})
    for call in [] if prewarm else reply.tool_calls:
        call_id = call.id or p.new_id("call_")
        output.append({"type": "function_call", "id": p.new_id("fc_"), "call_id": call_id,
                       "name": call.name, "arguments": json.dumps(call.arguments),
                       "status": "completed"})
        if reasoning is not None:
            state.call_reasoning[call_id] = reasoning["id"]
    out_tokens = 0 if prewarm else reply.output_tokens()
    reasoning_tokens = 0 if reasoning is None else 16
    input_details: dict[str, Any] = {"cached_tokens": read, "cache_write_tokens": write}
    if details:
        input_details["cache_write_tokens_details"] = details
    usage = {"input_tokens": prompt.total, "input_tokens_details": input_details,
             "output_tokens": out_tokens + reasoning_tokens,
             "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
             "total_tokens": prompt.total + out_tokens + reasoning_tokens}
    response: dict[str, Any] = {
        "id": rid, "object": "response", "created_at": int(time.time()), "status": "completed",
        "model": body["model"], "output": output, "usage": usage, "error": None,
        "incomplete_details": None, "instructions": body.get("instructions"),
        "metadata": {}, "parallel_tool_calls": True, "temperature": 1.0, "top_p": 1.0,
        "tool_choice": body.get("tool_choice", "auto"), "tools": body.get("tools") or [],
        "store": body.get("store", True), "prompt_cache_key": body.get("prompt_cache_key")}
    options = body.get("prompt_cache_options")
    current = fingerprint(body, prompt)
    if supports_breakpoints(body["model"]):
        options = options or {}
        response["prompt_cache_options"] = {
            "mode": options.get("mode", "implicit"), "ttl": options.get("ttl", "30m"),
            "comparison_response_id": options.get("comparison_response_id")}
        if options.get("comparison_response_id"):
            old = state.stored.get(options["comparison_response_id"])
            diag = diagnose(old, current, read)
            response["prompt_cache_diagnostics"] = diag
            rec.miss_reason = diag.get("reason") or diag["type"]
    if body.get("store", True):
        state.stored[rid] = current
        if reasoning is not None:
            state.reasoning_ids.add(reasoning["id"])
    rec.status, rec.response_id, rec.usage = 200, rid, usage
    rec.cache_read, rec.cache_write = read, write
    headers = {"x-request-id": p.new_id("req_")}
    if not rec.stream:
        return Outcome(200, body=response, headers=headers, delay=reply.delay)
    return Outcome(200, events=stream_events(response, reply), headers=headers,
                   delay=reply.delay)


def _sse(events: list[bytes], event: dict[str, Any]) -> None:
    event["sequence_number"] = len(events)
    events.append(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())


def stream_events(response: dict[str, Any], reply: Reply) -> list[bytes]:
    """The Responses stream of a finished response: created, items, completed."""
    events: list[bytes] = []
    start = dict(response, status="in_progress", output=[], usage=None)
    _sse(events, {"type": "response.created", "response": start})
    _sse(events, {"type": "response.in_progress", "response": start})
    for index, item in enumerate(response["output"]):
        base = {"output_index": index, "item_id": item["id"]}
        if item["type"] == "reasoning":
            _sse(events, {"type": "response.output_item.added", "output_index": index,
                          "item": dict(item, summary=[])})
            for s_index, part in enumerate(item["summary"]):
                for piece in split_text(part["text"], 2):
                    _sse(events, dict(base, type="response.reasoning_summary_text.delta",
                                      summary_index=s_index, delta=piece))
                _sse(events, dict(base, type="response.reasoning_summary_text.done",
                                  summary_index=s_index, text=part["text"]))
        elif item["type"] == "message":
            _sse(events, {"type": "response.output_item.added", "output_index": index,
                          "item": dict(item, status="in_progress", content=[])})
            text = item["content"][0]["text"]
            for piece in split_text(text, reply.chunks or 3):
                _sse(events, dict(base, type="response.output_text.delta", content_index=0,
                                  delta=piece, logprobs=[]))
            _sse(events, dict(base, type="response.output_text.done", content_index=0,
                              text=text, logprobs=[]))
        else:
            _sse(events, {"type": "response.output_item.added", "output_index": index,
                          "item": dict(item, arguments="", status="in_progress")})
            for piece in split_text(item["arguments"], 2):
                _sse(events, dict(base, type="response.function_call_arguments.delta",
                                  delta=piece))
            _sse(events, dict(base, type="response.function_call_arguments.done",
                              arguments=item["arguments"], name=item["name"]))
        _sse(events, {"type": "response.output_item.done", "output_index": index,
                      "item": item})
    _sse(events, {"type": "response.completed", "response": response})
    return events
