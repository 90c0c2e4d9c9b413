"""Images in the fake APIs' prompts: found in any block, checked, and counted by the
provider's own formula (never as base64 text / 4).

- Anthropic: `{"type": "image", "source": {"type": "base64", "media_type", "data"}}`,
  also inside a `tool_result`'s content; ~width * height / 750 tokens; 5 MB of base64
  per image; the media type must match the bytes.
- OpenAI Chat Completions: `{"type": "image_url", "image_url": {"url": "data:..."}}`;
  Responses: `{"type": "input_image", "image_url": "data:..."}`; 85 + 170 per 512-px
  tile after fitting into 2048 x 2048 and the short side to 768.
"""

from __future__ import annotations

import base64
import io
import math
from typing import Any

ANTHROPIC_MAX_B64 = 5 * 1024 * 1024
ANTHROPIC_MAX_EDGE = 8000
OPENAI_MAX_BYTES = 20 * 1024 * 1024
FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg", "GIF": "image/gif", "WEBP": "image/webp"}


class ImageRefused(ValueError):
    """An image the real API would refuse (400)."""


def _decode(media_type: str, data: str) -> tuple[int, int]:
    from PIL import Image

    try:
        raw = base64.b64decode(data, validate=True)
        with Image.open(io.BytesIO(raw)) as image:
            kind, size = FORMATS.get(image.format or ""), image.size
    except Exception as exc:  # noqa: BLE001 - anything Pillow cannot read is refused
        raise ImageRefused(f"Could not process image: {type(exc).__name__}") from None
    if kind is None:
        raise ImageRefused("Image format is not supported: use png, jpeg, gif or webp")
    if kind != media_type:
        raise ImageRefused(f"Image does not match the provided media type {media_type}")
    return size


def anthropic_tokens(width: int, height: int) -> int:
    return max(1, math.ceil(width * height / 750))


def openai_tokens(width: int, height: int) -> int:
    factor = min(1.0, 2048 / max(width, height))
    width, height = width * factor, height * factor
    factor = min(1.0, 768 / min(width, height))
    width, height = width * factor, height * factor
    return 85 + 170 * math.ceil(width / 512) * math.ceil(height / 512)


def _data_url(url: Any) -> tuple[str, str]:
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        raise ImageRefused("Invalid image URL: this fake server takes data: URLs only")
    head, data = url[5:].split(";base64,", 1)
    return head, data


def _one(node: dict[str, Any]) -> tuple[int, dict[str, Any]] | None:
    """(tokens, the node without its pixels) for an image node; None for any other."""
    kind = node.get("type")
    if kind == "image" and isinstance(node.get("source"), dict):
        source = node["source"]
        if source.get("type") != "base64":
            raise ImageRefused("image.source.type: only base64 is accepted here")
        data = source.get("data") or ""
        if len(data) > ANTHROPIC_MAX_B64:
            raise ImageRefused("image exceeds 5 MB maximum")
        width, height = _decode(str(source.get("media_type")), data)
        if max(width, height) > ANTHROPIC_MAX_EDGE:
            raise ImageRefused("image dimensions exceed max allowed size: 8000 pixels")
        return anthropic_tokens(width, height), {"type": "image"}
    if kind in ("image_url", "input_image"):
        url = node["image_url"].get("url") if kind == "image_url" and isinstance(
            node.get("image_url"), dict) else node.get("image_url")
        media_type, data = _data_url(url)
        if len(data) * 3 // 4 > OPENAI_MAX_BYTES:
            raise ImageRefused("image is over the 20 MB limit")
        return openai_tokens(*_decode(media_type, data)), {"type": kind}
    return None


def count(obj: Any) -> tuple[int, Any]:
    """(image tokens in obj, obj with every image's pixels taken out) - the rest is
    counted as text by the caller; raises ImageRefused for a bad image."""
    if isinstance(obj, dict):
        found = _one(obj)
        if found is not None:
            return found
        total, out = 0, {}
        for key, value in obj.items():
            tokens, out[key] = count(value)
            total += tokens
        return total, out
    if isinstance(obj, list):
        total, items = 0, []
        for value in obj:
            tokens, item = count(value)
            total += tokens
            items.append(item)
        return total, items
    return 0, obj
