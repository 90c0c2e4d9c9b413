"""Making an `Image` from a file's bytes: checked, and scaled once to the provider's limits.

`prepare(data, name, limits)` is the one place an image enters hermes (an `@shot.png`,
`--image`, a gateway data URL, a Telegram photo, `read_file` on a picture). An image
within the limits (agent/providers/<name>/__init__.py `IMAGES`) is kept byte for byte;
a larger one is scaled down (aspect kept) and re-encoded - PNG for images with
transparency or few colours (screenshots, GIFs), JPEG quality 85 otherwise - once, at
attach time: the stored image is what every later request sends. Pillow is imported
here, on the first image, never at start-up.
"""

from __future__ import annotations

import base64
import io
import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.images import Image, ImageError, sniff
from agent.providers import registry
from agent.providers.spec import ImageLimits

if TYPE_CHECKING:  # Pillow loads with the first image (start-up speed)
    from PIL.Image import Image as PILImage

FORMATS = "PNG, JPEG, GIF or WebP"
MAX_INPUT_BYTES = 50 * 1024 * 1024  # what is read at all (a bigger file is refused)
MAX_PIXELS = 110_000_000  # declared in the header: a 108-MP phone photo passes, a bomb does not
_QUALITIES = (85, 70, 55)
DRAWN_COLOURS = 4096  # distinct colours in a 256-px thumbnail: more is a photo
BLIND_HINT = "switch to a model that takes images (/model), or describe the image in words"


@dataclass(frozen=True)
class Prepared:
    """The image to send and what scaling did (for the user's note and measurements)."""

    image: Image
    original_bytes: int
    original_size: tuple[int, int]
    tokens: int

    @property
    def scaled(self) -> bool:
        return self.original_size != (self.image.width, self.image.height) or \
            self.original_bytes != self.image.size

    def note(self) -> str:
        """One line: "shot.png 2880x1800 1.9 MB -> 1568x980 0.4 MB, ~2,049 tokens"."""
        w, h = self.original_size
        now = f"{self.image.width}x{self.image.height} {_mb(self.image.size)}"
        was = f"{w}x{h} {_mb(self.original_bytes)} -> " if self.scaled else ""
        return f"{self.image.name or 'image'} {was}{now}, ~{self.tokens:,} tokens"


def blind(provider: str, model: str) -> str | None:
    """Why `model` cannot be sent an image (None: it can)."""
    if registry.sees_images(provider, model):
        return None
    return f"{model} takes no images; nothing was sent"


def image_for(data: bytes, name: str, provider: str, model: str) -> Prepared:
    """`data` prepared for `model` served by `provider` (its limits), or ImageError -
    before any request - when the model has no vision."""
    why = blind(provider, model)
    if why is not None:
        raise ImageError(why, BLIND_HINT)
    return prepare(data, name, registry.image_limits(provider, model))


def _mb(n: int) -> str:
    return f"{n / 1_000_000:.1f} MB" if n >= 100_000 else f"{n / 1000:.0f} kB"


def _factor(width: int, height: int, limits: ImageLimits) -> float:
    factor = min(1.0, limits.max_edge / max(width, height),
                 math.sqrt(limits.max_pixels / (width * height)))
    if limits.short_edge:
        factor = min(factor, limits.short_edge / min(width, height))
    return factor


def _b64_len(n: int) -> int:
    return 4 * ((n + 2) // 3)


def prepare(data: bytes, name: str, limits: ImageLimits) -> Prepared:
    """The image `data` as it will be sent; ImageError (one line, a hint) when it cannot be."""
    media_type = sniff(data)
    if media_type is None:
        raise ImageError(f"{name} is not an image hermes can attach ({FORMATS})",
                         "convert it to PNG or JPEG first")
    if len(data) > MAX_INPUT_BYTES:
        raise ImageError(f"{name} is {len(data):,} bytes, over the {MAX_INPUT_BYTES:,}-byte "
                         "limit for an image", "attach a smaller image")
    from PIL import Image as PIL  # first image only: Pillow costs start-up time

    # MAX_PIXELS replaces Pillow's own warning (a stray stderr line in the REPL)
    warnings.filterwarnings("ignore", category=PIL.DecompressionBombWarning)
    try:
        with PIL.open(io.BytesIO(data)) as source:  # reads the header only
            if source.width * source.height > MAX_PIXELS:
                raise _bomb(name, f"declares {source.width:,}x{source.height:,} pixels")
            source.load()
            width, height = source.size
            factor = _factor(width, height, limits)
            if factor >= 1.0 and _b64_len(len(data)) <= limits.max_bytes:
                out, kind, size = data, media_type, (width, height)
            else:
                out, kind, size = _shrink(source, factor, limits)
    except ImageError:
        raise
    except PIL.DecompressionBombError:  # a header Pillow itself refuses (over twice its cap)
        raise _bomb(name, "declares more pixels than any image hermes reads") from None
    except (OSError, ValueError, SyntaxError) as exc:  # Pillow's ways of saying "damaged"
        raise ImageError(f"{name} cannot be read as an image: {exc}",
                         "check the file (is it complete?)") from None
    image = Image(kind, base64.b64encode(out).decode("ascii"), size[0], size[1], name)
    return Prepared(image, len(data), (width, height), limits.tokens(*size))


def _bomb(name: str, what: str) -> ImageError:
    """A header declaring a huge image (a decompression bomb): refused before decoding."""
    return ImageError(f"{name} {what}, over the {MAX_PIXELS:,}-pixel limit for an image",
                      "attach a smaller image (no provider takes more than ~8000 px a side)")


def _drawn(source: PILImage) -> bool:
    """A screenshot, diagram or other drawn image (few distinct colours) rather than a
    photo; judged on a thumbnail so a large image costs little."""
    probe = source.convert("RGB")
    probe.thumbnail((256, 256))
    return probe.getcolors(DRAWN_COLOURS) is not None


def _shrink(source: PILImage, factor: float, limits: ImageLimits) -> tuple[bytes, str, tuple[int, int]]:
    """Scaled by `factor` (then smaller, then lower JPEG quality) until the encoded
    image fits `limits.max_bytes`. Drawn images (and any with transparency) become a
    256-colour PNG: text stays sharp at a quarter of a full-colour PNG's bytes
    (measured: a 2880x1800 screenshot scaled to 1356x848 is 91 kB so, 397 kB as RGB
    PNG, 146 kB as JPEG); photos become JPEG."""
    from PIL import Image as PIL

    frame = source.convert("RGBA") if source.mode in ("P", "LA", "PA") else source
    if frame.mode not in ("RGB", "RGBA", "L"):
        frame = frame.convert("RGB")
    lossless = frame.mode == "RGBA" or (source.format in ("PNG", "GIF") and _drawn(frame))
    for _ in range(8):
        size = (max(1, round(source.width * factor)), max(1, round(source.height * factor)))
        scaled = frame.resize(size, PIL.Resampling.LANCZOS, reducing_gap=3.0) \
            if size != frame.size else frame
        for quality in (None,) if lossless else _QUALITIES:
            buffer = io.BytesIO()
            if lossless:
                scaled.quantize(256, method=PIL.Quantize.FASTOCTREE).save(buffer, "PNG")
            else:
                scaled.convert("RGB").save(buffer, "JPEG", quality=quality)
            if _b64_len(buffer.tell()) <= limits.max_bytes:
                return buffer.getvalue(), "image/png" if lossless else "image/jpeg", size
        factor *= 0.75
    raise ImageError("the image cannot be made small enough for this provider",
                     "attach a smaller image")
