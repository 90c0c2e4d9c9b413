"""Token estimates where no tokenizer is worth its import (previews, warnings, budgets)."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """A cheap token estimate (~4 chars per token) for previews and warnings."""
    return (len(text.encode("utf-8")) + 3) // 4


def image_tokens(width: int, height: int) -> int:
    """An image's tokens, ~width * height / 750 (Anthropic's published estimate; OpenAI's
    512-px tiles come out close for the sizes images are scaled to): never its bytes/4,
    which would count a screenshot as hundreds of thousands of tokens."""
    return max(1, -(-width * height // 750))


def images_tokens(images) -> int:
    """The tokens of a message's images (`agent.images.Image`s)."""
    return sum(image_tokens(i.width, i.height) for i in images)
