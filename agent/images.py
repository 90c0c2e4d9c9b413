"""Images in the conversation: the content part a message carries, byte-stable.

An `Image` is the encoded image exactly as it is sent (base64 text of PNG, JPEG, GIF or
WebP bytes) with its size in pixels. It is made once, when the user attaches it or a
tool reads it (agent/providers/image_scale.py scales it to the provider's limits then), stored
with its message (`messages.images`, canonical JSON) and re-sent unchanged on every
later request and after a resume: it is part of the cached prefix like the text
beside it. Nothing here imports Pillow.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any

from agent.errors import HermesError

# The formats every provider takes (by their first bytes, never by the file name).
MEDIA_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")


class ImageError(HermesError):
    """An image cannot be attached (not an image, an unknown format, a model without
    vision, a damaged file)."""


def sniff(data: bytes) -> str | None:
    """The media type of `data` by its signature; None for anything else."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def looks_like_image(name: str) -> bool:
    """A file name an image would have (for completion and pasted paths only)."""
    return name.lower().endswith(IMAGE_SUFFIXES)


@dataclass(frozen=True)
class Image:
    """One attached image: `data` is the base64 text sent, `name` what it was called
    (a path, "telegram photo", ...: shown, and kept when compaction removes it)."""

    media_type: str
    data: str
    width: int
    height: int
    name: str = ""

    @property
    def size(self) -> int:
        """Bytes of the encoded image (not of its base64 text)."""
        return len(self.data) * 3 // 4 - self.data[-2:].count("=")

    @property
    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.data}"

    def raw(self) -> bytes:
        return base64.b64decode(self.data)

    def as_json(self) -> dict[str, Any]:
        return {"media_type": self.media_type, "data": self.data, "width": self.width,
                "height": self.height, "name": self.name}

    def mention(self) -> str:
        """The short text that stands for the image once it is no longer sent."""
        label = f" {self.name}" if self.name else ""
        return f"[image{label}, {self.width}x{self.height}]"


class WithImages(str):
    """Text that carries images beside it: a tool result showing a picture (read_file),
    the message /retry runs again. Plain `str` everywhere text is expected."""

    images: tuple[Image, ...] = ()

    @classmethod
    def of(cls, text: str, images: tuple[Image, ...]) -> WithImages:
        out = cls(text)
        out.images = tuple(images)
        return out


def encode_images(images: tuple[Image, ...]) -> str | None:
    """Canonical JSON of a message's images (None: none) - the stored form."""
    if not images:
        return None
    return json.dumps([i.as_json() for i in images], sort_keys=True, separators=(",", ":"))


def decode_images(value: Any) -> tuple[Image, ...]:
    """Images from their stored form (a JSON text or the decoded list); () for none."""
    if not value:
        return ()
    items = json.loads(value) if isinstance(value, str) else value
    return tuple(Image(i["media_type"], i["data"], int(i["width"]), int(i["height"]),
                       i.get("name") or "") for i in items)


def from_data_url(url: str) -> tuple[str, bytes]:
    """(media type, bytes) of a `data:image/...;base64,...` URL; ImageError otherwise."""
    head, sep, body = url.partition(",")
    if not sep or not head.startswith("data:") or not head.endswith(";base64"):
        raise ImageError("an image data URL must look like data:image/png;base64,...",
                         "send the image base64-encoded in a data: URL")
    try:
        data = base64.b64decode(body, validate=True)
    except ValueError:
        raise ImageError("the image data URL is not valid base64",
                         "encode the image bytes with standard base64") from None
    return head[5:-7], data
