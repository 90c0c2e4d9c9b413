"""Extended thinking in the fake Anthropic API: signed blocks and the request rules.

Modelled on the Messages API (anthropic SDK 2.x types `ThinkingConfigParam`,
`ThinkingBlock(thinking, signature)`, `RedactedThinkingBlock(data)`, `thinking_delta` and
`signature_delta` stream events):

- with `thinking` enabled (`{"type": "enabled", "budget_tokens": N}` or
  `{"type": "adaptive"}`) every reply starts with a `thinking` block (or a
  `redacted_thinking` block when the script says so) carrying a signature;
- a signature is an HMAC over the thinking text, so a block altered by the client
  (text, signature or redacted data) is detected and refused with a 400;
- a tool-use continuation (the last assistant turn has `tool_use` blocks answered by the
  final user turn) must start with its thinking block while thinking is enabled:
  "expected thinking or redacted_thinking";
- thinking refuses `temperature` (other than 1), forced tool use (`any` / `tool`), a
  budget under 1,024 or not below `max_tokens`, and `adaptive` on models without it.
The cache break on a change of thinking settings is in `anthropic_api.extras_of`.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

SECRET = b"fake-thinking-key"
MIN_BUDGET = 1024
# Models (substrings) that accept manual budgets but not {"type": "adaptive"}.
NO_ADAPTIVE = ("claude-3-7", "sonnet-4-0", "sonnet-4-5", "opus-4-0", "opus-4-1", "opus-4-5",
               "haiku-4-5", "sonnet-4-2025", "opus-4-2025")


class ThinkingError(ValueError):
    """A request the real API would refuse with a 400 (the message is the API's)."""


def sign(thinking: str) -> str:
    mac = hmac.new(SECRET, ("thinking\n" + thinking).encode(), hashlib.sha256).digest()
    return base64.b64encode(b"sig1" + mac).decode()


def redacted_data(secret_text: str) -> str:
    payload = base64.b64encode(secret_text.encode()).decode()
    mac = hmac.new(SECRET, ("redacted\n" + payload).encode(), hashlib.sha256).hexdigest()
    return f"{payload}.{mac}"


def _valid(block: dict[str, Any]) -> bool:
    if block.get("type") == "thinking":
        text, signature = block.get("thinking"), block.get("signature")
        return isinstance(text, str) and isinstance(signature, str) and \
            hmac.compare_digest(signature, sign(text))
    payload, _, mac = str(block.get("data") or "").partition(".")
    good = hmac.new(SECRET, ("redacted\n" + payload).encode(), hashlib.sha256).hexdigest()
    return bool(mac) and hmac.compare_digest(mac, good)


def enabled(body: dict[str, Any]) -> bool:
    config = body.get("thinking")
    return isinstance(config, dict) and config.get("type") in ("enabled", "adaptive")


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def validate(body: dict[str, Any]) -> None:
    """Raise ThinkingError for what the real API refuses about thinking."""
    config = body.get("thinking")
    messages = body.get("messages") or []
    for i, message in enumerate(messages):
        for k, block in enumerate(_blocks(message)):
            if block.get("type") in ("thinking", "redacted_thinking"):
                if message.get("role") != "assistant":
                    raise ThinkingError(f"messages.{i}.content.{k}: thinking blocks may only "
                                        "appear in assistant messages")
                if not _valid(block):
                    raise ThinkingError(f"messages.{i}.content.{k}: Invalid `signature` in "
                                        "`thinking` block")
    if config is None or (isinstance(config, dict) and config.get("type") == "disabled"):
        return
    if not enabled(body):
        raise ThinkingError("thinking.type: Input should be 'enabled', 'adaptive' or 'disabled'")
    _check_settings(body, config)
    _check_continuation(messages)


def _check_settings(body: dict[str, Any], config: dict[str, Any]) -> None:
    if config["type"] == "enabled":
        budget = config.get("budget_tokens")
        if not isinstance(budget, int) or budget < MIN_BUDGET:
            raise ThinkingError(f"thinking.enabled.budget_tokens: Input should be greater than "
                                f"or equal to {MIN_BUDGET}")
        if budget >= int(body.get("max_tokens") or 0):
            raise ThinkingError("`max_tokens` must be greater than `thinking.budget_tokens`")
    elif any(name in str(body.get("model", "")).lower() for name in NO_ADAPTIVE):
        raise ThinkingError(f"adaptive thinking is not supported on {body.get('model')}")
    if body.get("temperature") not in (None, 1, 1.0):
        raise ThinkingError("`temperature` may only be set to 1 when thinking is enabled or in "
                            "adaptive mode")
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") in ("any", "tool"):
        raise ThinkingError("Thinking may not be enabled when tool_choice forces tool use.")


def _check_continuation(messages: list[dict[str, Any]]) -> None:
    """The assistant turn a final tool_result answers must start with its thinking."""
    if len(messages) < 2 or messages[-1].get("role") != "user":
        return
    if not any(b.get("type") == "tool_result" for b in _blocks(messages[-1])):
        return
    assistant = _blocks(messages[-2])
    if not any(b.get("type") == "tool_use" for b in assistant):
        return
    if not assistant or assistant[0].get("type") not in ("thinking", "redacted_thinking"):
        first = assistant[0].get("type") if assistant else "nothing"
        raise ThinkingError(f"messages.{len(messages) - 2}.content.0.type: Expected `thinking` "
                            f"or `redacted_thinking`, but found `{first}`. When `thinking` is "
                            "enabled, a final `assistant` message must start with a thinking "
                            "block (preceeding the lastmost set of `tool_use` and "
                            "`tool_result` blocks).")


def default_thinking(body: dict[str, Any]) -> str:
    """Deterministic thinking text for a reply that the script did not give one."""
    count = len(body.get("messages") or [])
    return f"Let me think about message {count} step by step before answering."


def reply_blocks(body: dict[str, Any], thinking: str | None, redacted: bool) -> list[dict]:
    """The thinking blocks a reply starts with (none when thinking is off)."""
    if not enabled(body):
        return []
    text = thinking if thinking is not None else default_thinking(body)
    if redacted:
        return [{"type": "redacted_thinking", "data": redacted_data(text)}]
    return [{"type": "thinking", "thinking": text, "signature": sign(text)}]


def output_tokens(blocks: list[dict[str, Any]]) -> int:
    """Thinking is billed as output: its text (or the redacted payload) in tokens."""
    size = sum(len(b.get("thinking") or b.get("data") or "") for b in blocks)
    return -(-size // 4) if size else 0


def stream_block(index: int, block: dict[str, Any], pieces: list[str]) -> list[dict]:
    """The SSE events of one thinking block (without content_block_stop)."""
    if block["type"] == "redacted_thinking":
        return [{"type": "content_block_start", "index": index, "content_block": block}]
    events: list[dict] = [{"type": "content_block_start", "index": index,
                           "content_block": {"type": "thinking", "thinking": "",
                                             "signature": ""}}]
    events += [{"type": "content_block_delta", "index": index,
                "delta": {"type": "thinking_delta", "thinking": piece}} for piece in pieces]
    events.append({"type": "content_block_delta", "index": index,
                   "delta": {"type": "signature_delta", "signature": block["signature"]}})
    return events


def settings_key(body: dict[str, Any]) -> str:
    """Canonical text of the thinking settings (for tests and records)."""
    return json.dumps(body.get("thinking"), sort_keys=True) if body.get("thinking") else ""
