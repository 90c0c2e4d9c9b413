"""Fake Gemini API: `models/{m}:generateContent`, `:streamGenerateContent?alt=sse`,
`cachedContents` create/get/patch(ttl)/delete/list, with the rules of gemini_rules.py,
a best-effort implicit cache, explicit caches billed per token-hour while they live,
and `usageMetadata` as the real API reports it (`promptTokenCount` includes
`cachedContentTokenCount`; `thoughtsTokenCount` apart from `candidatesTokenCount`).

Implicit caching is best effort here as there: an eligible repeated prefix (at least
the model's floor, within 5 minutes) is read on every `implicit_every`-th such request
(default every second one). `GeminiState.bill(now)` is what the account would be charged.
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from .cache import FIVE_MINUTES, Prompt, count_tokens
from .gemini_rules import (
    PRICES,
    GeminiError,
    check_cache_name,
    check_generate,
    check_signatures,
    content_blocks,
    floor,
    model_id,
    normal,
    prefix_blocks,
    sign_part,
    thinking_enabled,
)
from .script import Drop, Error, Outcome, Record, Reply, split_text

if TYPE_CHECKING:
    from .server import FakeProvider

PATH = re.compile(r"^/v1(?:beta|alpha)?/(?:(models/[^/:]+):(generateContent|streamGenerateContent)"
                  r"|(cachedContents)(?:/([^/]+))?)$")
DEFAULT_TTL = 3600.0


@dataclass
class Cache:
    name: str
    model: str
    prefix: list[Any]  # blocks (tools, system) then contents blocks
    contents: list[dict[str, Any]]
    tokens: int
    created: float
    expires: float
    updated: float
    deleted: float | None = None

    def end(self, now: float) -> float:
        return min(self.expires, now if self.deleted is None else self.deleted)

    def alive(self, now: float) -> bool:
        return self.deleted is None and self.expires > now


@dataclass
class GeminiState:
    """Explicit caches and the server's time: the fake clock's 0 is the wall clock when
    the fake started (a client with no server time yet assumes its own wall clock)."""

    caches: dict[str, Cache] = field(default_factory=dict)
    epoch: float = field(default_factory=time.time)
    implicit_every: int = 2
    replies: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # id -> parts sent
    creations: int = 0
    _eligible: int = 0

    def clear(self) -> None:
        self.caches.clear()
        self.replies.clear()
        self.creations = 0
        self._eligible = 0

    def storage_token_hours(self, now: float) -> float:
        return sum(c.tokens * max(0.0, c.end(now) - c.created) / 3600.0
                   for c in self.caches.values())

    def bill(self, records: list[Record], now: float) -> dict[str, float]:
        """Dollars by line: input, cached reads, output, cache creation, storage."""
        lines = {"input": 0.0, "cached": 0.0, "output": 0.0, "creation": 0.0, "storage": 0.0}
        for rec in records:
            if rec.api != "gemini" or rec.status != 200 or rec.model is None:
                continue
            inp, read, out, _store = PRICES[rec.model]
            if rec.usage is not None and "promptTokenCount" in rec.usage:
                u = rec.usage
                cached = u.get("cachedContentTokenCount", 0)
                lines["input"] += (u["promptTokenCount"] - cached) * inp / 1e6
                lines["cached"] += cached * read / 1e6
                lines["output"] += (u.get("candidatesTokenCount", 0)
                                    + u.get("thoughtsTokenCount", 0)) * out / 1e6
            elif rec.cache_write:
                lines["creation"] += rec.cache_write * inp / 1e6
        for cache in self.caches.values():
            hours = max(0.0, cache.end(now) - cache.created) / 3600.0
            lines["storage"] += cache.tokens * hours * PRICES[cache.model][3] / 1e6
        return lines


def stamp(p: FakeProvider, now: float) -> str:
    return datetime.fromtimestamp(p.gemini.epoch + now, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _ttl(value: Any) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)s", str(value or ""))
    if not match:
        raise GeminiError(400, f"Invalid ttl {value!r}: a duration in seconds like \"3600s\".")
    return float(match.group(1))


def error(rec: Record, exc: GeminiError) -> Outcome:
    rec.status, rec.error = exc.code, exc.message
    return Outcome(exc.code, body=exc.body())


def route(p: FakeProvider, rec: Record, method: str) -> Outcome:
    """Dispatch one Gemini API request (any method) by its path."""
    match = PATH.match(rec.path)
    if match is None:
        return error(rec, GeminiError(404, f"no {rec.path}"))
    if not rec.headers.get("x-goog-api-key"):
        return error(rec, GeminiError(403, "Method doesn't allow unregistered callers (callers "
                                           "without established identity). Please use API Key "
                                           "or other form of API consumer identity to call this API."))
    model, verb, caches, cache_id = match.groups()
    try:
        rec.body = normal(json.loads(rec.raw or b"{}")) if rec.raw else {}
        if verb is not None:
            rec.stream = verb == "streamGenerateContent"
            return generate(p, rec, model_id(model))
        assert caches
        return cached_contents(p, rec, method, f"cachedContents/{cache_id}" if cache_id else None)
    except GeminiError as exc:
        return error(rec, exc)


# ---------------------------------------------------------------- cachedContents

def _view(p: FakeProvider, cache: Cache) -> dict[str, Any]:
    return {"name": cache.name, "model": f"models/{cache.model}", "displayName": "",
            "createTime": stamp(p, cache.created), "updateTime": stamp(p, cache.updated),
            "expireTime": stamp(p, cache.expires),
            "usageMetadata": {"totalTokenCount": cache.tokens}}


def cached_contents(p: FakeProvider, rec: Record, method: str, name: str | None) -> Outcome:
    now = p.clock.now()
    state = p.gemini
    rec.status = 200
    with p.lock:
        if name is None and method == "POST":
            return Outcome(200, body=_view(p, _create(p, rec, now)))
        if name is None and method == "GET":
            live = [_view(p, c) for c in state.caches.values() if c.alive(now)]
            return Outcome(200, body={"cachedContents": live} if live else {})
        assert name is not None
        check_cache_name(name)
        cache = state.caches.get(name)
        if cache is None or not cache.alive(now):
            raise GeminiError(403, "CachedContent not found (or permission denied)")
        if method == "GET":
            return Outcome(200, body=_view(p, cache))
        if method == "PATCH":
            ttl = _ttl(rec.body.get("ttl"))
            cache.expires, cache.updated = now + ttl, now
            return Outcome(200, body=_view(p, cache))
        if method == "DELETE":
            cache.deleted = now
            return Outcome(200, body={})
    raise GeminiError(405, f"{method} is not allowed on {name}")


def _create(p: FakeProvider, rec: Record, now: float) -> Cache:
    body = rec.body
    model = model_id(str(body.get("model") or ""))
    if model not in PRICES:
        raise GeminiError(404, f"models/{model} is not found for API version v1beta, or is not "
                               "supported for createCachedContent.")
    contents = body.get("contents") or []
    blocks = prefix_blocks(body) + content_blocks(contents)
    tokens = Prompt(model, blocks).total
    if tokens < floor(model):
        raise GeminiError(400, f"Cached content is too small. total_token_count={tokens}, "
                               f"min_total_token_count={floor(model)}")
    ttl = _ttl(body["ttl"]) if "ttl" in body else DEFAULT_TTL
    name = p.new_id("cachedContents/fake")
    cache = Cache(name, model, blocks, contents, tokens, now, now + ttl, now)
    p.gemini.caches[name] = cache
    p.gemini.creations += 1
    rec.model, rec.cache_write = model, tokens
    return cache


# ---------------------------------------------------------------- generateContent

def _prompt(p: FakeProvider, body: dict[str, Any], model: str, now: float) -> tuple[Prompt, int]:
    """The prompt as the model sees it, and the tokens read from an explicit cache."""
    name = body.get("cachedContent")
    if not name:
        return Prompt(model, prefix_blocks(body) + content_blocks(body["contents"])), 0
    check_cache_name(name)
    cache = p.gemini.caches.get(name)
    if cache is None or not cache.alive(now):
        raise GeminiError(403, "CachedContent not found (or permission denied)")
    if cache.model != model:
        raise GeminiError(400, f"Model {model} does not match the CachedContent's model "
                               f"{cache.model}.")
    first = len(cache.contents)
    return Prompt(model, cache.prefix + content_blocks(body["contents"], first)), cache.tokens


def _implicit(p: FakeProvider, prompt: Prompt, model: str, now: float) -> int:
    cached, _write = p.cache.automatic(("gemini", model), prompt, min_tokens=floor(model),
                                       step=1, ttl=FIVE_MINUTES, now=now)
    if not cached:
        return 0
    p.gemini._eligible += 1
    return cached if p.gemini._eligible % p.gemini.implicit_every == 0 else 0


def generate(p: FakeProvider, rec: Record, model: str) -> Outcome:
    body = dict(rec.body, model=model)
    rec.model = model
    if model not in PRICES:
        raise GeminiError(404, f"models/{model} is not found for API version v1beta.")
    item = p.next_item(rec)
    if isinstance(item, Error):
        raise GeminiError(item.status, item.error_message())
    if isinstance(item, Drop):
        rec.status = 0
        return Outcome(0, drop_after=0)
    check_generate(body)
    check_signatures(model, body["contents"])
    now = p.clock.now()
    with p.lock:
        prompt, explicit = _prompt(p, body, model, now)
        implicit = 0 if explicit else _implicit(p, prompt, model, now)
        rid = p.new_id("resp-")
    reply = item if isinstance(item, Reply) else Reply(text="ok")
    thinks, include = thinking_enabled(body)
    thought = (reply.thinking or f"Thinking about request {rid}.") if thinks else ""
    parts = _reply_parts(reply, thought if include else "", thinks)
    p.gemini.replies[rid] = parts
    cached = explicit or implicit
    usage = {"promptTokenCount": prompt.total, "candidatesTokenCount": reply.output_tokens(),
             "totalTokenCount": 0}
    if cached:
        usage["cachedContentTokenCount"] = cached
    if thinks:
        usage["thoughtsTokenCount"] = count_tokens(thought)
    usage["totalTokenCount"] = (prompt.total + usage["candidatesTokenCount"]
                                + usage.get("thoughtsTokenCount", 0))
    rec.status, rec.response_id, rec.usage = 200, rid, usage
    rec.prompt_tokens, rec.cache_read = prompt.total, cached
    finish = {"finishReason": "STOP", "index": 0}
    head = {"modelVersion": model, "responseId": rid}
    if not rec.stream:
        return Outcome(200, body=dict(head, usageMetadata=usage, candidates=[
            dict(finish, content={"role": "model", "parts": parts})]))
    return Outcome(200, events=_events(head, parts, usage, finish, reply), delay=reply.delay)


def _reply_parts(reply: Reply, thought: str, thinks: bool) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if thought:
        parts.append({"text": thought, "thought": True})
    if reply.text:
        parts.append({"text": reply.text})
    for index, call in enumerate(reply.tool_calls):
        part = {"functionCall": {"name": call.name, "args": call.arguments,
                                 **({"id": call.id} if call.id else {})}}
        parts.append(sign_part(part) if thinks and index == 0 else part)
    if thinks and not reply.tool_calls and parts:
        parts[-1] = sign_part(parts[-1])  # the last part carries the turn's signature
    return parts


def _events(head: dict[str, Any], parts: list[dict[str, Any]], usage: dict[str, Any],
            finish: dict[str, Any], reply: Reply) -> list[bytes]:
    """SSE chunks: a text part in pieces (its signature on the last piece), other parts
    whole; usage on every chunk (the prompt's first), finishReason on the last."""
    chunks: list[dict[str, Any]] = []
    for part in parts:
        if "text" in part:
            pieces = split_text(part["text"], reply.chunks or 3)
            for n, piece in enumerate(pieces):
                one = {"text": piece, **({"thought": True} if part.get("thought") else {})}
                if n == len(pieces) - 1 and "thoughtSignature" in part:
                    one["thoughtSignature"] = part["thoughtSignature"]
                chunks.append(one)
        else:
            chunks.append(part)
    prompt_only = {"promptTokenCount": usage["promptTokenCount"],
                   "totalTokenCount": usage["promptTokenCount"]}
    events = []
    for n, part in enumerate(chunks or [{"text": ""}]):
        last = n == max(len(chunks), 1) - 1
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if last:
            candidate.update(finish)
        event = dict(head, candidates=[candidate], usageMetadata=usage if last else prompt_only)
        events.append(b"data: " + json.dumps(event).encode() + b"\r\n\r\n")
    return events


def bill_total(p: FakeProvider) -> float:
    return math.fsum(p.gemini.bill(p.requests, p.clock.now()).values())
