"""Gemini wire mapping, pure (no HTTP, no SDK import): neutral request -> the keyword
arguments of `client.models.generate_content_stream`, `usageMetadata` -> Usage, streamed
chunks -> one response dict -> ProviderReply.

Dicts are in the SDK's snake_case (it sends them camelCase or as given; the API reads
both, as proto3 JSON does). Bytes fields (`thought_signature`, `inline_data.data`) are
`bytes` here; the SDK sends them URL-safe base64.

Thought signatures (docs/CACHING.md section 1, Gemini): a model turn's parts are kept
exactly as received - one reasoning block `{"type": "gemini_parts", "parts": [...]}`
per assistant message, each signature as the URL-safe base64 text of its bytes - and
sent back from that block, so the signature bytes and the parts they sign never change,
within a tool loop or after a resume. A signature dropped or altered is an HTTP 400.
"""

from __future__ import annotations

import base64
from typing import Any

from agent.errors import TransientProviderError
from agent.images import Image
from agent.messages import (
    Message,
    ProviderReply,
    Request,
    ToolCall,
    block_dict,
    block_json,
    canonical_arguments,
)
from agent.providers._wire import counts
from agent.providers.base import StreamThinking
from agent.usage import Usage

PARTS_BLOCK = "gemini_parts"  # Message.reasoning block type: a model turn's parts
GENERATED_ID = "gcall-"  # our id for a function call that came without one (never sent)
EMPTY_PLACEHOLDER = "(empty)"
_MODES = {"auto": "AUTO", "any": "ANY", "required": "ANY", "none": "NONE"}


def b64(data: bytes) -> str:
    """Bytes as the SDK sends them: URL-safe base64 with padding."""
    return base64.urlsafe_b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    """Base64 text in either alphabet, padded or not -> bytes."""
    text = text.strip()
    return base64.urlsafe_b64decode(text.replace("+", "-").replace("/", "_")
                                    + "=" * (-len(text) % 4))


# ---------------------------------------------------------------- request

def _image(image: Image) -> dict[str, Any]:
    return {"inline_data": {"mime_type": image.media_type, "data": unb64(image.data)}}


def stored_parts(message: Message) -> list[dict[str, Any]] | None:
    """The parts of a model turn as received (signatures as bytes), or None when the
    message holds none (another provider's turn, a scripted one)."""
    for text in message.reasoning:
        block = block_dict(text)
        if block.get("type") == PARTS_BLOCK:
            return [_part_out(part) for part in block.get("parts") or []]
    return None


def _part_out(part: dict[str, Any]) -> dict[str, Any]:
    out = dict(part)
    if "thought_signature" in out:
        out["thought_signature"] = unb64(out["thought_signature"])
    return out


def _call_part(call: ToolCall) -> dict[str, Any]:
    call_wire: dict[str, Any] = {"name": call.name, "args": call.wire_arguments()}
    if not call.id.startswith(GENERATED_ID):
        call_wire["id"] = call.id
    return {"function_call": call_wire}


def _message_content(message: Message) -> tuple[str, list[dict[str, Any]]]:
    """(wire role, parts) for one neutral message."""
    if message.role == "tool":
        response: dict[str, Any] = {"name": message.tool_name or "tool",
                                    "response": {"error" if message.is_error else "output":
                                                 message.content}}
        if message.tool_call_id and not message.tool_call_id.startswith(GENERATED_ID):
            response["id"] = message.tool_call_id
        return "user", [{"function_response": response}, *map(_image, message.images)]
    if message.role == "assistant":
        parts = stored_parts(message)
        if parts is None:
            parts = [{"text": message.wire_text}] if message.wire_text else []
            parts += [_call_part(call) for call in message.tool_calls]
        return "model", parts
    parts = [_image(i) for i in message.images]
    if message.wire_text:
        parts.append({"text": message.wire_text})
    return "user", parts


def map_contents(messages: list[Message]) -> list[dict[str, Any]]:
    """Wire contents: same roles merged (a turn's tool results are one user content)."""
    contents: list[dict[str, Any]] = []
    for message in messages:
        role, parts = _message_content(message)
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": role, "parts": parts or [{"text": EMPTY_PLACEHOLDER}]})
    return contents


SHARED_SCOPES = ("installation", "project")  # agent.prompt.SCOPES every session shares


def map_system(request: Request, shared: bool | None = None) -> dict[str, Any] | None:
    """The system instruction: every block (None), only the blocks every session of the
    installation/project shares (True: what an explicit cache holds), or the rest
    (False: the session's own - its environment block, the ephemeral layer)."""
    parts = [{"text": block.text} for block in request.system if block.text and (
        shared is None or shared == (block.layer == "stable" and block.scope in SHARED_SCOPES))]
    return {"parts": parts} if parts else None


def map_tools(request: Request) -> list[dict[str, Any]]:
    if not request.tools:
        return []
    return [{"function_declarations": [
        {"name": tool.name, "description": tool.description,
         "parameters_json_schema": tool.parameters} for tool in request.tools]}]


def map_tool_config(request: Request) -> dict[str, Any] | None:
    if not request.tools or request.tool_choice is None:
        return None
    mode = _MODES.get(request.tool_choice)
    if mode is None:
        return {"function_calling_config": {"mode": "ANY",
                                            "allowed_function_names": [request.tool_choice]}}
    return {"function_calling_config": {"mode": mode}}


def map_thinking(request: Request) -> dict[str, Any] | None:
    """`thinking_config`: a budget, dynamic (-1) for adaptive, a level for an effort;
    thoughts are included (their summaries stream as thinking)."""
    reasoning = request.reasoning
    config: dict[str, Any] = {}
    if reasoning.thinking == "budget":
        config["thinking_budget"] = reasoning.budget_tokens
    elif reasoning.thinking == "adaptive":
        config["thinking_budget"] = -1
    effort = request.reasoning_effort or reasoning.effort
    if effort and "thinking_budget" not in config:
        config["thinking_level"] = effort.upper()
    if not config:
        return None
    config["include_thoughts"] = True
    return config


def map_request(request: Request, cached: str | None = None, skip: int = 0) -> dict[str, Any]:
    """Neutral request -> `generate_content_stream` keyword arguments (byte-stable).

    `cached`: the name of an explicit cache holding tools, the shared system blocks and
    the first `skip` wire contents; such a request must not send them again (the API
    answers 400 to tools, tool_config or system_instruction beside `cached_content`),
    so the session's own system blocks open the first user content instead: the cache
    is one per prefix every session shares, not one per session."""
    contents = map_contents(request.messages)
    config: dict[str, Any] = {}
    if cached is None:
        system = map_system(request)
        if system is not None:
            config["system_instruction"] = system
        tools = map_tools(request)
        if tools:
            config["tools"] = tools
        tool_config = map_tool_config(request)
        if tool_config is not None:
            config["tool_config"] = tool_config
    else:
        config["cached_content"] = cached
        contents = contents[skip:]
        own = map_system(request, shared=False)
        if own is not None:
            if contents and contents[0]["role"] == "user":
                contents[0] = {"role": "user", "parts": own["parts"] + contents[0]["parts"]}
            else:
                contents.insert(0, {"role": "user", "parts": own["parts"]})
    config["max_output_tokens"] = request.max_tokens or 8192
    if request.temperature is not None:
        config["temperature"] = request.temperature
    thinking = map_thinking(request)
    if thinking is not None:
        config["thinking_config"] = thinking
    return {"model": request.model, "contents": contents, "config": config}


# ---------------------------------------------------------------- response

def map_usage(wire: dict[str, Any] | None) -> Usage:
    """`usageMetadata` -> Usage. `promptTokenCount` INCLUDES `cachedContentTokenCount`
    (implicit or explicit reads); `thoughtsTokenCount` is output, billed as output."""
    usage = counts(wire)
    if not usage:
        return Usage(cache_known=False)
    prompt = (usage.get("prompt_token_count") or 0) + (usage.get("tool_use_prompt_token_count") or 0)
    cached = min(usage.get("cached_content_token_count") or 0, prompt)
    output = (usage.get("candidates_token_count") or 0) + (usage.get("thoughts_token_count") or 0)
    return Usage(uncached=prompt - cached, cache_read=cached, output=output, cache_known=True)


def _part_in(part: dict[str, Any]) -> dict[str, Any]:
    """A received part as stored: Nones dropped, signature bytes as base64 text."""
    out: dict[str, Any] = {}
    for key, value in part.items():
        if value is None:
            continue
        if key == "thought_signature":
            out[key] = b64(value) if isinstance(value, bytes) else str(value)
        elif isinstance(value, dict):
            out[key] = {k: v for k, v in value.items() if v is not None}
        else:
            out[key] = value
    return out


def map_response(wire: dict[str, Any]) -> ProviderReply:
    """An accumulated response dict (`parts`, `usage_metadata`, ...) -> ProviderReply."""
    parts: list[dict[str, Any]] = wire.get("parts") or []
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    for index, part in enumerate(parts):
        call = part.get("function_call")
        if call:
            call_id = call.get("id") or f"{GENERATED_ID}{wire.get('response_id') or ''}-{index}"
            calls.append(ToolCall(id=call_id, name=call.get("name") or "",
                                  arguments=canonical_arguments(call.get("args") or {})))
        elif part.get("thought"):
            thoughts.append(part.get("text") or "")
        elif part.get("text"):
            texts.append(part["text"])
    reasoning: tuple[str, ...] = ()
    if parts:
        block = {"type": PARTS_BLOCK, "parts": parts, "thinking": "".join(thoughts)}
        reasoning = (block_json(block),)
    return ProviderReply(
        message=Message(role="assistant", content="".join(texts), tool_calls=tuple(calls),
                        reasoning=reasoning),
        usage=map_usage(wire.get("usage_metadata")),
        stop_reason=str(wire.get("finish_reason") or ""),
        response_id=wire.get("response_id"),
        model=wire.get("model_version") or "",
    )


class StreamAccumulator:
    """Builds one response dict from streamed `GenerateContentResponse.model_dump()`s.

    Text pieces are joined into the part they continue (same `thought` flag, no
    signature yet); a piece carrying a signature ends its part with it; every other
    part (a function call) is kept as received."""

    def __init__(self) -> None:
        self.parts: list[dict[str, Any]] = []
        self._pieces: list[list[str]] = []
        self.meta: dict[str, Any] = {}
        self.started = False
        self.finished = False

    def feed(self, event: dict[str, Any]) -> str | StreamThinking | None:
        self.started = True
        for key in ("usage_metadata", "response_id", "model_version"):
            if event.get(key) is not None:
                self.meta[key] = event[key]
        candidates = event.get("candidates") or []
        if not candidates:
            return None
        candidate = candidates[0] or {}
        if candidate.get("finish_reason") is not None:
            self.meta["finish_reason"] = getattr(candidate["finish_reason"], "value",
                                                 candidate["finish_reason"])
            self.finished = True
        out: list[str] = []
        thinking: list[str] = []
        for raw in (candidate.get("content") or {}).get("parts") or []:
            part = _part_in(raw)
            text = part.get("text")
            if isinstance(text, str):
                (thinking if part.get("thought") else out).append(text)
            self._add(part)
        if thinking and not out:
            return StreamThinking("".join(thinking))
        return "".join(out) or None

    def _add(self, part: dict[str, Any]) -> None:
        if set(part) - {"text", "thought", "thought_signature"} or "text" not in part:
            self.parts.append(part)
            self._pieces.append([])
            return
        last = self.parts[-1] if self.parts else None
        if (last is not None and set(last) <= {"text", "thought"} and "text" in last
                and bool(last.get("thought")) == bool(part.get("thought"))):
            self._pieces[-1].append(part["text"])
            if "thought_signature" in part:
                last["thought_signature"] = part["thought_signature"]
            return
        self.parts.append(dict(part))
        self._pieces.append([])

    def _built(self) -> dict[str, Any]:
        parts = []
        for part, pieces in zip(self.parts, self._pieces, strict=True):
            joined = dict(part)
            if pieces:
                joined["text"] = joined.get("text", "") + "".join(pieces)
            parts.append(joined)
        return {**self.meta, "parts": parts}

    def partial(self) -> dict[str, Any] | None:
        """What arrived so far (None before the first chunk)."""
        return self._built() if self.started and "usage_metadata" in self.meta else None

    def response(self) -> dict[str, Any]:
        if not self.finished:
            raise TransientProviderError("Gemini stream ended before the reply was complete")
        return self._built()
