"""MCP tool names and schemas made provider-safe and byte-stable (pure functions).

A tool `search` of server `docs` is `mcp__docs__search`. Providers accept names matching
^[a-zA-Z0-9_-]{1,64}$: other characters become `_`, and a name that was changed or is
too long ends in a hash of the original pair, so two tools never collide and the name is
the same in every process. Schemas lose the keywords providers reject (`$schema`, `$id`,
top-level combinators) and are checked for what makes a request fail (a non-object
root, properties that are not schemas, unknown type names); what cannot be repaired
is a SchemaError and the tool is left out with a warning."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from agent.messages import canonical_json

PREFIX = "mcp__"
LIMIT = 64
_ALLOWED = re.compile(r"[^A-Za-z0-9_-]")
_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
_DROPPED_ROOT = ("$schema", "$id", "$comment", "oneOf", "anyOf", "allOf", "not", "if", "then",
                 "else", "enum", "const")
DESCRIPTION_MAX = 2_000  # characters of a server's tool description kept


class SchemaError(ValueError):
    """A schema that cannot be made valid."""


def tool_name(server: str, tool: str) -> str:
    """The name the model sees for `tool` of `server` (deterministic, <= 64 chars)."""
    raw = f"{PREFIX}{server}__{tool}"
    safe = _ALLOWED.sub("_", raw)
    if safe == raw and len(raw) <= LIMIT:
        return raw
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{safe[:LIMIT - 9]}_{digest}"


def description(text: str | None, server: str) -> str:
    """The server's description, one canonical form (trimmed, capped), tagged with it."""
    body = (text or "").strip() or "(no description)"
    if len(body) > DESCRIPTION_MAX:
        body = body[: DESCRIPTION_MAX - 3] + "..."
    return f"[MCP server {server}] {body}"


def normalise(schema: object) -> dict[str, Any]:
    """The input schema as a canonical, provider-safe object schema (SchemaError if not)."""
    if not isinstance(schema, dict):
        raise SchemaError(f"the input schema is {type(schema).__name__}, not an object schema")
    out = {k: v for k, v in schema.items() if k not in _DROPPED_ROOT}
    root_type = out.setdefault("type", "object")
    if root_type != "object":
        raise SchemaError(f"the input schema's type is {root_type!r}, not 'object'")
    props = out.setdefault("properties", {})
    if not isinstance(props, dict):
        raise SchemaError("`properties` is not a mapping")
    for name, sub in props.items():
        _check(sub, f"properties.{name}")
    required = out.get("required")
    if required is not None:
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            raise SchemaError("`required` is not a list of names")
        kept = sorted(r for r in set(required) if r in props)
        if kept:
            out["required"] = kept
        else:
            out.pop("required")
    try:
        plain: dict[str, Any] = json.loads(canonical_json(out))  # an object, as `out` is
        return plain
    except (TypeError, ValueError) as exc:
        raise SchemaError(f"the schema is not plain JSON ({exc})") from None


def _check(node: object, where: str) -> None:
    """Every sub-schema is a mapping (or a boolean) whose `type` names JSON types."""
    if isinstance(node, bool):
        return
    if not isinstance(node, dict):
        raise SchemaError(f"`{where}` is {node!r}, not a schema")
    kind = node.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
    unknown = [k for k in kinds if k not in _TYPES]
    if unknown:
        raise SchemaError(f"`{where}` has unknown type {unknown[0]!r}")
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        if isinstance(node.get(key), dict):
            for name, sub in node[key].items():
                _check(sub, f"{where}.{key}.{name}")
    for key in ("items", "additionalProperties", "not"):
        if key in node and isinstance(node[key], (dict, bool)):
            _check(node[key], f"{where}.{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for index, sub in enumerate(node.get(key) or []):
            _check(sub, f"{where}.{key}[{index}]")
