"""Row shapes of the session store: column sets, encoding in, decoding out.

The store speaks plain dicts. JSON columns (`tools`, `toolsets`, `tool_calls`) are
decoded on the way out and booleans come back as `bool`. Tool-call `arguments` given as
text are stored verbatim (they are the exact bytes sent to the provider); given as a
dict they are serialised canonically (sorted keys, compact separators).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from memory.db import Row
from memory.errors import StoreError
from memory.redact import redact_url
from memory.text import is_storable

ROLES = frozenset({"user", "assistant", "tool"})

SESSION_UPDATABLE = frozenset(
    {
        "parent_id",
        "stable_layout",
        "model",
        "provider",
        "base_url",
        "personality",
        "title",
        "cwd",
        "system_prompt",
        "ephemeral_prompt",
        "tools",
        "toolsets",
        "source",
        "owner",
        "ended",
        "mcp_tools",  # canonical JSON of the frozen MCP tool schemas (agent/mcp)
        "choices",  # canonical JSON of the session's other choices (agent/sessions/choices.py)
    }
)

USAGE_FIELDS = frozenset(
    {
        "turn",
        "call_index",
        "provider_miss_reason",
        "model",
        "provider",
        "uncached",
        "write_5m",
        "write_1h",
        "cache_read",
        "output",
        "cost_usd",
        "cache_known",
        "miss_cause",
        "miss_detail",
        "missed_tokens",
        "response_id",
        "prompt_fingerprint",
        "kind",
        "stored_token_hours",  # explicit-cache storage billed with this row (0014)
        "meters",  # JSON: what else the provider billed, priced (agent/usage.py Meter; 0015)
    }
)

PREVIEW_CHARS = 60


def now_iso() -> str:
    """The current time as an ISO-8601 UTC string with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def canonical_json(value: object) -> str:
    """Byte-stable JSON: sorted keys, compact separators, non-ASCII kept (all of it
    \\u-escaped when some text is not UTF-8, so the JSON stays valid once stored)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if is_storable(text):
        return text
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def encode_name_list(values: Iterable[str] | None) -> str:
    """Encode a tool or toolset name list as JSON, keeping the caller's order."""
    if isinstance(values, str):
        raise TypeError("expected a list of names, got a single string")
    return json.dumps([str(v) for v in (values or ())], separators=(",", ":"))


def encode_tool_calls(tool_calls: Iterable[dict[str, Any]] | None) -> str | None:
    """Validate and encode tool calls ({id, name, arguments}); None or empty -> None."""
    if tool_calls is None:
        return None
    encoded = []
    for call in tool_calls:
        if not isinstance(call, dict) or not {"id", "name", "arguments"} <= call.keys():
            raise ValueError("each tool call must be a dict with id, name and arguments")
        item = dict(call)
        args = item["arguments"]
        if args is None:
            item["arguments"] = "{}"
        elif not isinstance(args, str):
            item["arguments"] = canonical_json(args)
        encoded.append(item)
    return canonical_json(encoded) if encoded else None


def decode_session(row: Row | None) -> Row | None:
    """Decode a sessions row (JSON lists, `ended` as bool)."""
    if row is None:
        return None
    out = dict(row)
    out.pop("rowid", None)  # PostgreSQL's stand-in for SQLite's implicit rowid
    out["tools"] = json.loads(out["tools"] or "[]")
    out["toolsets"] = json.loads(out["toolsets"] or "[]")
    out["ended"] = bool(out["ended"])
    return out


def encode_reasoning(blocks: Iterable[str] | None) -> str | None:
    """Encode reasoning blocks (each an opaque text, kept as is); none -> None."""
    blocks = list(blocks or ())
    if not all(isinstance(b, str) for b in blocks):
        raise ValueError("reasoning blocks must be texts")
    return json.dumps(blocks, ensure_ascii=True) if blocks else None


def encode_images(images: Iterable[dict[str, Any]] | None) -> str | None:
    """Canonical JSON of a message's images (each {media_type, data, width, height,
    name}); none -> None. The base64 text is stored once, in its message's row."""
    items = list(images or ())
    if not all(isinstance(i, dict) and isinstance(i.get("data"), str) for i in items):
        raise ValueError("images must be dicts with base64 `data`")
    return canonical_json(items) if items else None


def decode_message(row: Row) -> Row:
    """Decode a messages row (`tool_calls` list or None, `reasoning` list of texts,
    `is_error` as bool). A column that is not what hermes wrote (edited or damaged by
    hand) is a StoreError naming the session and message, never a traceback later."""
    out = dict(row)
    calls = _column(out, "tool_calls") if out["tool_calls"] else None
    if calls is not None and not (isinstance(calls, list) and all(
            isinstance(c, dict) and isinstance(c.get("id"), str) and isinstance(c.get("name"), str)
            and isinstance(c.get("arguments", ""), str | type(None)) for c in calls)):
        raise _damaged(out, "tool_calls", "not a list of {id, name, arguments}")
    out["tool_calls"] = calls
    reasoning = _column(out, "reasoning") if out.get("reasoning") else []
    if not (isinstance(reasoning, list) and all(isinstance(b, str) for b in reasoning)):
        raise _damaged(out, "reasoning", "not a list of texts")
    out["reasoning"] = reasoning
    images = _column(out, "images") if out.get("images") else []
    if not (isinstance(images, list) and all(
            isinstance(i, dict) and isinstance(i.get("data"), str) for i in images)):
        raise _damaged(out, "images", "not a list of images")
    out["images"] = images
    out["is_error"] = bool(out["is_error"])
    return out


def _column(row: Row, name: str) -> Any:
    try:
        return json.loads(row[name])
    except (ValueError, TypeError) as exc:
        raise _damaged(row, name, f"not valid JSON: {exc}") from None


def _damaged(row: Row, name: str, why: str) -> StoreError:
    where = f"message {row.get('seq', '?')} of session {row.get('session_id', '?')}"
    return StoreError(f"the stored {name} of {where} is damaged ({why})",
                      "the session cannot be rebuilt as stored: start a new one (`hermes`), "
                      "or restore state.db from a backup")


def decode_usage(row: Row) -> Row:
    """Decode a usage row (`cache_known` as bool, `meters` as a list)."""
    out = dict(row)
    out["cache_known"] = bool(out["cache_known"])
    out["meters"] = json.loads(out["meters"]) if out.get("meters") else []
    return out


def encode_session_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Validate and encode a partial sessions update; unknown names raise ValueError."""
    unknown = set(fields) - SESSION_UPDATABLE
    if unknown:
        raise ValueError(f"unknown session field(s): {', '.join(sorted(unknown))}")
    out = dict(fields)
    if "base_url" in out:
        out["base_url"] = redact_url(out["base_url"])
    for key in ("tools", "toolsets"):
        if key in out:
            out[key] = encode_name_list(out[key])
    if "ended" in out:
        out["ended"] = int(bool(out["ended"]))
    return out


def encode_usage(row: dict[str, Any], session: Row) -> dict[str, Any]:
    """Validate a usage row and fill defaults (model/provider from the session)."""
    unknown = set(row) - USAGE_FIELDS
    if unknown:
        raise ValueError(f"unknown usage field(s): {', '.join(sorted(unknown))}")
    out: dict[str, Any] = {
        "turn": 0,
        "call_index": 0,
        "uncached": 0,
        "write_5m": 0,
        "write_1h": 0,
        "cache_read": None,
        "output": 0,
        "cost_usd": None,
    }
    out.update(row)
    out.setdefault("model", session["model"])
    out.setdefault("provider", session["provider"])
    out["cache_known"] = int(bool(out.get("cache_known", out["cache_read"] is not None)))
    return out


def preview(text: str | None) -> str:
    """One-line preview of a message: whitespace collapsed, at most 60 characters."""
    flat = re.sub(r"\s+", " ", text or "").strip()
    if len(flat) <= PREVIEW_CHARS:
        return flat
    return flat[: PREVIEW_CHARS - 1] + "…"


def fts_query(text: str, max_terms: int = 32) -> str:
    """Turn arbitrary user text into a safe FTS5 query: quoted words OR-ed together.

    Only word characters survive, so quotes, `-`, `:`, `*`, parentheses and bare
    AND/OR/NOT can never form FTS5 syntax. Returns '' when no word is left.
    """
    terms: list[str] = []
    seen: set[str] = set()
    for word in re.findall(r"\w+", text or ""):
        if word.lower() not in seen:
            seen.add(word.lower())
            terms.append(f'"{word}"')
        if len(terms) >= max_terms:
            break
    return " OR ".join(terms)
