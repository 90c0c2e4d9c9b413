"""An MCP CallToolResult as the text the model reads (pure).

Text content as is; images, audio and embedded resources are described (type, size,
URI), never inlined; structured content only when there is no text. The same size cap
as read_file; `isError` results become ToolErrors, so they look like our own failures."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING

from agent.errors import ToolError
from agent.tools.read_file import MAX_CHARS

if TYPE_CHECKING:
    from mcp_types import ContentBlock


def render(result: object) -> str:
    """The text of `result` (an mcp CallToolResult); ToolError when the server says so."""
    parts = [_part(block) for block in getattr(result, "content", None) or []]
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, sort_keys=True, ensure_ascii=False))
    text = "\n".join(parts) if parts else "(the tool returned no content)"
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS] + (f"\n[output capped at {MAX_CHARS:,} characters of "
                                   f"{len(text):,}]")
    if getattr(result, "is_error", False):
        raise ToolError(text)
    return text


def _part(block: ContentBlock) -> str:
    if block.type == "text":
        return block.text
    if block.type == "image" or block.type == "audio":
        return f"[{block.type} {block.mime_type}, {_size(block.data)} - not shown to the model]"
    if block.type == "resource":
        res = block.resource
        body = getattr(res, "text", None)
        size = len(body.encode()) if body is not None else _decoded(getattr(res, "blob", ""))
        mime = getattr(res, "mime_type", None) or "unknown type"
        return f"[embedded resource {res.uri} ({mime}, {size:,} bytes)]" + (
            f"\n{body}" if body is not None else "")
    if block.type == "resource_link":
        return f"[resource link {block.uri} ({block.mime_type or 'unknown type'})]"
    return f"[{getattr(block, 'type', '') or 'unknown'} content not shown]"  # a newer kind


def _decoded(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (ValueError, TypeError):
        return len(data)


def _size(data: str) -> str:
    return f"{_decoded(data):,} bytes"
