"""The Gemini API's rules as the fake enforces them: field names (camelCase or
snake_case, as proto3 JSON reads both), thought signatures, explicit-cache floors, what
may not stand beside `cachedContent`, and the token model (tests/fakes/cache.py's:
ceil(len(canonical JSON) / 4) per block, identical for camel and snake spellings).

Published limits kept here (Gemini API docs, "Context caching", "Thought signatures"):
- an explicit cache holds at least 4,096 tokens on the 3.x models, 2,048 on 2.5;
- a request with `cachedContent` may not set `systemInstruction`, `tools` or
  `toolConfig` ("move those values to CachedContent");
- on Gemini 3, the first `functionCall` part of each model step in the current turn
  must carry the `thoughtSignature` it came with; a signature that does not match what
  the API issued is refused ("Corrupted thought signature").
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from typing import Any

from .cache import Block, canonical, make_block

SECRET = b"fake-gemini-signatures"
FLOOR_3X = 4096
FLOOR_25 = 2048
_OPAQUE = {"args", "response", "parametersJsonSchema", "parameters", "responseJsonSchema"}

# Published list prices the fake bills with ($ per million tokens; storage per hour):
# (input, cached read, output, storage). Google's pricing page, December 2026.
PRICES = {
    "gemini-3.5-flash": (1.5, 0.15, 9.0, 1.00),
    "gemini-3.1-pro-preview": (2.0, 0.2, 12.0, 4.50),
    "gemini-3-pro-preview": (2.0, 0.2, 12.0, 4.50),
    "gemini-2.5-flash": (0.3, 0.03, 2.5, 1.00),
    "gemini-2.5-pro": (1.25, 0.125, 10.0, 4.50),
}


class GeminiError(Exception):
    STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
              404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message,
                          "status": self.STATUS.get(self.code, "UNKNOWN")}}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def normal(value: Any) -> Any:
    """Every field name camelCase (user data - function args, schemas - as sent)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = camel(key)
            out[name] = item if name in _OPAQUE else normal(item)
        return out
    if isinstance(value, list):
        return [normal(item) for item in value]
    return value


def floor(model: str) -> int:
    return FLOOR_25 if "2.5" in model else FLOOR_3X


def model_id(model: str) -> str:
    return model.removeprefix("models/")


# ---------------------------------------------------------------- signatures

def sign(bound: str) -> str:
    mac = hmac.new(SECRET, bound.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(b"\xfb\xff" + mac).decode()  # "-_" in every one


def _bound(part: dict[str, Any]) -> str:
    call = part.get("functionCall")
    if call is not None:
        return "call\n" + canonical({"name": call.get("name"), "args": call.get("args") or {}})
    return "text\n" + str(part.get("text") or "")


def sign_part(part: dict[str, Any]) -> dict[str, Any]:
    return dict(part, thoughtSignature=sign(_bound(part)))


def _decode(text: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(text.replace("+", "-").replace("/", "_")
                                        + "=" * (-len(text) % 4))
    except (ValueError, TypeError):
        return None


def check_signatures(model: str, contents: list[dict[str, Any]]) -> None:
    """400 for an altered signature anywhere, or (Gemini 3) a function call of the
    current turn sent back without its signature."""
    for i, content in enumerate(contents):
        for k, part in enumerate(content.get("parts") or []):
            signature = part.get("thoughtSignature")
            if signature is None:
                continue
            expected = _decode(sign(_bound(part)))
            if _decode(str(signature)) != expected:
                raise GeminiError(400, f"Corrupted thought signature in contents[{i}].parts[{k}].")
    if not model_id(model).startswith("gemini-3"):
        return
    start = 0
    for i, content in enumerate(contents):
        if content.get("role") == "user" and any("text" in p for p in content.get("parts") or []):
            start = i
    for i in range(start, len(contents)):
        content = contents[i]
        if content.get("role") != "model":
            continue
        calls = [p for p in content.get("parts") or [] if "functionCall" in p]
        if calls and "thoughtSignature" not in calls[0]:
            name = calls[0]["functionCall"].get("name")
            raise GeminiError(400, f"Function call `{name}` in the {i + 1}. content block is "
                                   "missing a `thought_signature`.")


# ---------------------------------------------------------------- requests

def check_generate(body: dict[str, Any]) -> None:
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        raise GeminiError(400, "* GenerateContentRequest.contents: contents is not specified")
    for i, content in enumerate(contents):
        if content.get("role") not in ("user", "model"):
            raise GeminiError(400, f"Please use a valid role: user, model (contents[{i}]).")
        if not content.get("parts"):
            raise GeminiError(400, f"* GenerateContentRequest.contents[{i}].parts: contents.parts "
                                   "must not be empty.")
        for k, part in enumerate(content["parts"]):
            if part.get("text") == "":
                raise GeminiError(400, f"contents[{i}].parts[{k}]: empty text")
    if body.get("cachedContent") and any(body.get(k) for k in
                                         ("systemInstruction", "tools", "toolConfig")):
        raise GeminiError(400, "CachedContent can not be used with GenerateContent request "
                               "setting system_instruction, tools or tool_config.\n\nProposed "
                               "fix: move those values to CachedContent from GenerateContent "
                               "request.")


def prefix_blocks(body: dict[str, Any]) -> list[Block]:
    """Tools, tool config and system instruction (as blocks, in prefix order)."""
    blocks = []
    for tool in body.get("tools") or []:
        for decl in tool.get("functionDeclarations") or []:
            blocks.append(make_block(decl, "tools"))
    if body.get("toolConfig"):
        blocks.append(make_block(body["toolConfig"], "tools"))
    for part in (body.get("systemInstruction") or {}).get("parts") or []:
        blocks.append(make_block({"text": part.get("text")}, "system"))
    return blocks


def content_blocks(contents: list[dict[str, Any]], first: int = 0) -> list[Block]:
    """One block per part, the part's signature not counted (it is not prompt text)."""
    blocks = []
    for i, content in enumerate(contents):
        for k, part in enumerate(content.get("parts") or []):
            clean = {key: value for key, value in part.items() if key != "thoughtSignature"}
            blocks.append(make_block(clean, "messages", first + i,
                                     role=content.get("role", "") if k == 0 else ""))
    return blocks


def thinking_enabled(body: dict[str, Any]) -> tuple[bool, bool]:
    """(the model thinks, thoughts are returned): Gemini 3 always thinks; 2.5 Flash
    unless its budget is 0."""
    config = (body.get("generationConfig") or {}).get("thinkingConfig") or {}
    include = bool(config.get("includeThoughts"))
    if model_id(str(body.get("model") or "")).startswith("gemini-2.5-flash"):
        return config.get("thinkingBudget") != 0, include
    return True, include


_CACHE_NAME = re.compile(r"^cachedContents/[A-Za-z0-9_-]+$")


def check_cache_name(name: str) -> None:
    if not _CACHE_NAME.match(name or ""):
        raise GeminiError(400, f"Invalid CachedContent name {name!r}.")
