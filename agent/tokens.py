"""Token estimates where no tokenizer is worth its import (previews, warnings, budgets)."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """A cheap token estimate (~4 chars per token) for previews and warnings."""
    return (len(text.encode("utf-8")) + 3) // 4
