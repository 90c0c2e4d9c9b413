"""Fake DeepSeek API (`POST <base>/chat/completions`, base `FakeProvider.deepseek_base_url`):
Chat Completions as DeepSeek serves it.

- Thinking mode on unless the request sends `thinking: {"type": "disabled"}`: each reply
  streams `reasoning_content` before its text (`Reply.thinking`, or a default made from
  the last user message); its tokens are output (`completion_tokens_details`).
- With tools in the request and thinking on, every assistant message of the history
  must carry `reasoning_content`, and a reply of this fake must come back with exactly
  the reasoning it was sent with - else HTTP 400, the API's own words: "The
  `reasoning_content` in the thinking mode must be passed back to the API."
- Automatic prefix caching on disk (hours): any earlier prefix of the same model is read
  in 64-token units, nothing is charged for writing; usage reports
  `prompt_cache_hit_tokens` + `prompt_cache_miss_tokens` (= `prompt_tokens`).
- `DeepSeekState.bill()`: what the account pays, each request priced with genai-prices'
  DeepSeek entry in force at its time (`DeepSeekState.now`: the wall clock, or a time a
  test or bench sets), computed here from the data, not by hermes' pricing.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .cache import Prompt
from .openai_api import ApiError, build_blocks, chunk, error_outcome, validate
from .script import Drop, Error, Outcome, Record, Reply, split_arguments, split_text

if TYPE_CHECKING:
    from .server import FakeProvider

UNIT = 64  # cache hits come in 64-token units
ON_DISK = 6 * 3600.0  # how long an entry lives here
MISSING_REASONING = "The `reasoning_content` in the thinking mode must be passed back to the API."


@dataclass
class DeepSeekState:
    """What the fake remembers: the reasoning each reply was sent with (by its text and
    tool call ids: the replies of one text share a set), each billed request's price time, and the clock that prices them."""

    said: dict[str, set[str]] = field(default_factory=dict)  # reply -> reasonings sent
    priced_at: dict[int, datetime] = field(default_factory=dict)  # id(record) -> when
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))

    def clear(self) -> None:
        self.said.clear()
        self.priced_at.clear()

    def bill(self, records: list[Record]) -> float:
        """$ the account pays for the DeepSeek requests among `records`."""
        return math.fsum(self.cost(r) for r in records
                         if r.api == "deepseek" and r.status == 200 and r.usage)

    def cost(self, rec: Record) -> float:
        from genai_prices.data import providers

        deepseek = next(p for p in providers if p.id == "deepseek")
        info = deepseek.find_model(str(rec.model))
        assert info is not None, rec.model
        price = info.get_prices(self.priced_at[id(rec)])
        usage = rec.usage or {}
        return float(usage["prompt_cache_miss_tokens"] * (price.input_mtok or 0)
                     + usage["prompt_cache_hit_tokens"] * (price.cache_read_mtok or 0)
                     + usage["completion_tokens"] * (price.output_mtok or 0)) / 1e6


def _said_key(content: Any, calls: list[dict[str, Any]]) -> str:
    return json.dumps([content or "", [c.get("id") for c in calls]])


def thinking_on(body: dict[str, Any]) -> bool:
    return (body.get("thinking") or {}).get("type") != "disabled"


def check_reasoning(state: DeepSeekState, body: dict[str, Any]) -> None:
    """The thinking-mode rule for tool requests (module docstring)."""
    if not body.get("tools") or not thinking_on(body):
        return
    for i, msg in enumerate(body["messages"]):
        if msg.get("role") != "assistant":
            continue
        sent = msg.get("reasoning_content")
        known = state.said.get(_said_key(msg.get("content"), msg.get("tool_calls") or []))
        if not isinstance(sent, str) or (known is not None and sent not in known):
            raise ApiError(400, MISSING_REASONING, param=f"messages.[{i}].reasoning_content")


def _reasoning(body: dict[str, Any], reply: Reply) -> str:
    if not thinking_on(body):
        return ""
    if reply.thinking is not None:
        return reply.thinking
    last = next((m.get("content") for m in reversed(body["messages"]) if m.get("role") == "user"), "")
    return f"The user asks: {str(last)[:60]}. I answer plainly."


def handle(p: FakeProvider, rec: Record) -> Outcome:
    auth = rec.headers.get("authorization", "")
    if not auth.startswith("Bearer ") or not auth[7:].strip():
        return error_outcome(p, rec, 401, "Authentication Fails, Your api key is invalid",
                             etype="authentication_error")
    body = rec.body
    rec.stream, rec.model = body.get("stream") is True, str(body.get("model") or "")
    item = p.next_item(rec)
    if isinstance(item, Error):
        return error_outcome(p, rec, item.status, item.error_message(), etype=item.type,
                             retry_after=item.retry_after)
    if isinstance(item, Drop):
        rec.status = 0
        return Outcome(0, drop_after=0)
    try:
        validate(body)
        check_reasoning(p.deepseek, body)
    except ApiError as exc:
        return error_outcome(p, rec, exc.status, exc.message, code=exc.code, param=exc.param)
    prompt = Prompt(rec.model, build_blocks(body))
    rec.prompt_tokens = prompt.total
    return _answer(p, rec, item if isinstance(item, Reply) else Reply(text="ok"), prompt)


def _answer(p: FakeProvider, rec: Record, reply: Reply, prompt: Prompt) -> Outcome:
    body = rec.body
    with p.lock:
        hit, _written = p.cache.automatic(("deepseek", rec.model), prompt, min_tokens=UNIT,
                                          step=UNIT, ttl=ON_DISK, now=p.clock.now())
        rid = p.new_id("deepseek-")
        p.deepseek.priced_at[id(rec)] = p.deepseek.now()
    reasoning = _reasoning(body, reply)
    thought = math.ceil(len(reasoning) / 4) if reasoning else 0
    calls = [{"id": c.id or p.new_id("call_"), "type": "function",
              "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
             for c in reply.tool_calls]
    p.deepseek.said.setdefault(_said_key(reply.text, calls), set()).add(reasoning)
    out = reply.output_tokens() + thought
    usage = {"prompt_tokens": prompt.total, "completion_tokens": out,
             "total_tokens": prompt.total + out, "prompt_cache_hit_tokens": hit,
             "prompt_cache_miss_tokens": prompt.total - hit,
             "completion_tokens_details": {"reasoning_tokens": thought}}
    rec.status, rec.response_id, rec.usage, rec.cache_read = 200, rid, usage, hit
    head = {"id": rid, "created": int(time.time()), "model": rec.model,
            "system_fingerprint": "fp_fake", "object": "chat.completion.chunk"}

    def one(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return chunk(dict(head, choices=[{"index": 0, "delta": delta, "logprobs": None,
                                          "finish_reason": finish}], usage=None))

    events = [one({"role": "assistant", "content": None, "reasoning_content": ""})]
    events += [one({"content": None, "reasoning_content": piece})
               for piece in split_text(reasoning, 2)]
    events += [one({"content": piece, "reasoning_content": None})
               for piece in split_text(reply.text, reply.chunks or 3)]
    for index, call in enumerate(calls):
        events.append(one({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                           "function": {"name": call["function"]["name"],
                                                        "arguments": ""}}]}))
        events += [one({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in split_arguments(call["function"]["arguments"], reply)]
    events.append(one({}, "tool_calls" if calls else "stop"))
    events.append(chunk(dict(head, choices=[], usage=usage)))
    events.append(b"data: [DONE]\n\n")
    return Outcome(200, events=events, headers={"x-request-id": p.new_id("req_")})
