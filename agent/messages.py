"""Neutral message and request types shared by the loop, the adapters and the store.

History is append-only: a `Message` is never edited after it is appended (docs/CACHING.md
invariant 2). Tool-call arguments are kept as canonical JSON text so the bytes sent
for an old assistant message never change between requests.

Reasoning settings (extended thinking, effort) are part of a request; the opaque blocks
they produce are kept as the canonical JSON text of the block exactly as received
(ASCII-escaped, so the store never alters it) and re-sent from that text, so their bytes
never change between requests, within the tool loop or after a resume (which providers
take which settings: agent/providers/reasoning.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from agent.images import Image
from agent.usage import Usage
from memory.text import storable

Role = Literal["user", "assistant", "tool"]

BLOCK_TYPES = ("thinking", "redacted_thinking")


@dataclass(frozen=True)
class Reasoning:
    """How much the model thinks. `thinking`: "off", "budget" (`budget_tokens`) or
    "adaptive"; `effort`: a provider effort level or None (the provider's default)."""

    thinking: str = "off"
    budget_tokens: int = 0
    effort: str | None = None

    @property
    def thinks(self) -> bool:
        return self.thinking != "off"

    def key(self) -> str:
        """Canonical one-line form (diagnosis fingerprints, config round trips)."""
        mode = f"budget={self.budget_tokens}" if self.thinking == "budget" else self.thinking
        return f"thinking={mode};effort={self.effort or ''}"

    def describe(self) -> str:
        """What a person reads: "thinking 8,000 tokens, effort high"."""
        thinking = {"off": "thinking off", "adaptive": "adaptive thinking"}.get(
            self.thinking, f"thinking up to {self.budget_tokens:,} tokens")
        return thinking + (f", effort {self.effort}" if self.effort else "")

    def as_text(self) -> str:
        """The settings as `parse` reads them back ("8000 effort=high"), for storing."""
        mode = str(self.budget_tokens) if self.thinking == "budget" else self.thinking
        return f"{mode} effort={self.effort or 'default'}"

    def with_effort(self, effort: str | None) -> Reasoning:
        """These settings with a per-message effort (None keeps the session's)."""
        return self if effort is None else replace(self, effort=effort)


@dataclass(frozen=True)
class CacheHints:
    """What a request carries for its prompt cache besides its breakpoints, in the cache
    model's words (agent.providers.cache_model): each adapter maps what its wire has.

    `key`: the prefix's identity across sessions (OpenAI `prompt_cache_key`);
    `retention`: how long the provider keeps it, on request (OpenAI "24h"), None: its default;
    `lifetime`: the entries' lifetime as the wire names it (GPT-5.6 "30m" | "12h"), None:
    the wire names none apart from the breakpoints' own TTLs;
    `previous`: the previous response of this cache chain (the provider compares with it);
    `refresh`: prepare/extend the cache and generate nothing (GPT-5.6 `prewarm`).
    """

    key: str | None = None
    retention: str | None = None
    lifetime: str | None = None
    previous: str | None = None
    refresh: bool = False


NO_HINTS = CacheHints()




def canonical_json(value: Any) -> str:
    """Serialise `value` byte-stably: sorted keys, compact separators, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def short_sha(text: str) -> str:
    """The first 16 hex digits of the SHA-256 of `text` (the fingerprints' hashes)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def canonical_arguments(raw: str | dict[str, Any] | None) -> str:
    """Canonicalise tool-call arguments given as JSON text or a dict.

    Text that is not valid JSON is kept verbatim (the model sees its own mistake and the
    tool receives an error); the bytes are still stable because they are stored as sent.
    """
    if raw is None or raw == "":
        return "{}"
    if isinstance(raw, dict):
        return canonical_json(raw)
    try:
        return canonical_json(json.loads(raw))
    except (ValueError, TypeError):
        return raw


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the model. `arguments` is canonical JSON text."""

    id: str
    name: str
    arguments: str = "{}"

    def __post_init__(self) -> None:
        object.__setattr__(self, "arguments", storable(self.arguments))

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; raises ValueError when the model sent bad JSON."""
        value = json.loads(self.arguments)
        if not isinstance(value, dict):
            raise ValueError("tool arguments must be a JSON object")
        return value

    def wire_arguments(self) -> dict[str, Any]:
        """The arguments as the object a wire that wants one re-sends (Anthropic's `input`,
        Gemini's `args`): bad JSON as the model sent it, under `raw_arguments`."""
        try:
            return self.parsed_arguments()
        except ValueError:
            return {"raw_arguments": self.arguments}


@dataclass(frozen=True)
class Message:
    """One history entry.

    - user: `content` is what the user typed; `wire_suffix` is dynamic-layer text that was
      appended to it on the wire (it is re-sent byte-identically on every later request).
    - assistant: `content` text plus optional `tool_calls`; `reasoning` holds the
      provider's thinking / redacted_thinking blocks exactly as received (canonical JSON
      text each, see agent/providers/reasoning.py), re-sent before the text, never altered.
    - tool: `content` is the result text for `tool_call_id` (`tool_name` for display).
    `images` (user and tool messages): pictures sent with the text (agent/images.py),
      stored with the message and re-sent byte-identically like it.
    `kind` marks special messages: "summary" (compression seam), "interrupted".
    """

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    wire_suffix: str = ""
    kind: str = ""
    is_error: bool = False
    reasoning: tuple[str, ...] = ()
    images: tuple[Image, ...] = ()

    def __post_init__(self) -> None:
        # The one chokepoint before the store and the wire: lone surrogates (non-UTF-8
        # bytes from paths, argv, tool output) become visible \xNN escapes.
        object.__setattr__(self, "content", storable(self.content))
        object.__setattr__(self, "wire_suffix", storable(self.wire_suffix))

    @property
    def wire_text(self) -> str:
        """The exact text sent to the provider for this message."""
        return self.content + self.wire_suffix

    @cached_property
    def digest(self) -> str:
        """A hash of what this message sends (role, wire text, tool calls, result id,
        error flag, reasoning blocks) for the cache-miss fingerprints (agent/diagnosis.py).
        Computed once: a message never changes after it is made, and every call of a
        session hashes its whole history."""
        return short_sha(canonical_json([
            self.role, self.wire_text, [(c.id, c.name, c.arguments) for c in self.tool_calls],
            self.tool_call_id or "", self.is_error, list(self.reasoning)]))


@dataclass(frozen=True)
class ToolSchema:
    """A tool definition as the model sees it. `parameters` is a JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]

    def canonical(self) -> str:
        """Byte-stable JSON of this schema (made once: a session's schemas are frozen)."""
        return self._canonical

    @cached_property
    def _canonical(self) -> str:
        return canonical_json(
            {"name": self.name, "description": self.description, "parameters": self.parameters}
        )


@dataclass(frozen=True)
class Breakpoint:
    """Where a cache breakpoint goes and its TTL ("5m" or "1h").

    `target` is "tools" (after the last tool), "system" (after system block `index`), or
    "message" (after the last wire block of message `index`).
    """

    target: Literal["tools", "system", "message"]
    index: int = -1
    ttl: Literal["5m", "1h"] = "5m"


@dataclass(frozen=True)
class SystemBlock:
    """One block of the system prompt (the stable layer, then the ephemeral layer)."""

    text: str
    layer: Literal["stable", "ephemeral"] = "stable"
    scope: str = ""  # stable blocks: who shares it (agent.prompts.prompt.SCOPES); not sent

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", storable(self.text))


@dataclass
class Request:
    """A provider-neutral request: tools -> system -> messages, in prefix order."""

    model: str
    system: list[SystemBlock]
    messages: list[Message]
    tools: list[ToolSchema] = field(default_factory=list)
    max_tokens: int = 8192
    breakpoints: list[Breakpoint] = field(default_factory=list)
    session_id: str | None = None
    tool_choice: str | None = None  # None = provider default ("auto" when tools exist)
    temperature: float | None = None
    reasoning_effort: str | None = None
    reasoning: Reasoning = field(default_factory=Reasoning)  # thinking settings
    cache: CacheHints = field(default_factory=lambda: NO_HINTS)  # its cache model's hints


@dataclass(frozen=True)
class ProviderReply:
    """What a provider call produced: the assistant message and its accounting."""

    message: Message
    usage: Usage
    stop_reason: str = ""
    response_id: str | None = None
    miss_reason: str | None = None  # provider-reported cache miss type, if any
    missed_tokens: int | None = None
    model: str = ""


# ---------------------------------------------------------------- opaque blocks

def block_json(block: dict[str, Any]) -> str:
    """Canonical JSON text of a reasoning block as received (ASCII: storable as is)."""
    return json.dumps(block, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def block_dict(text: str) -> dict[str, Any]:
    """The block to send back, from its stored text."""
    return json.loads(text)


def thinking_text(blocks: tuple[str, ...]) -> str:
    """The readable thinking of some blocks (redacted ones have none; an OpenAI reasoning
    item shows its summary)."""
    return "".join(_readable(block_dict(b)) for b in blocks)


def _readable(block: dict[str, Any]) -> str:
    if block.get("type") == "reasoning":
        return "".join(part.get("text") or "" for part in block.get("summary") or [])
    return block.get("thinking") or ""
