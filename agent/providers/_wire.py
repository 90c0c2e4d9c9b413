"""Defensive reading of what a provider sent, shared by the adapters.

A server (a proxy, a local OpenAI-compatible one, a broken gateway) may send usage
numbers as strings or garbage; pricing and the budget do arithmetic on them, so every
count is made an int here, once, before a `Usage` is built.
"""

from __future__ import annotations

from typing import Any


def count(value: Any) -> int | None:
    """A token count: an int as is, a float or numeric string read as an int; None for
    anything else (treated as "not reported")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") else None
    if isinstance(value, str):
        try:
            return int(float(value.strip()))
        except (ValueError, OverflowError):
            return None
    return None


def counts(usage: Any) -> dict[str, Any]:
    """A usage mapping with every number an int (nested mappings alike); keys whose
    value is not a number are dropped. Not a mapping -> {}."""
    if not isinstance(usage, dict):
        return {}
    out: dict[str, Any] = {}
    for key, value in usage.items():
        if isinstance(value, dict):
            out[key] = counts(value)
        else:
            number = count(value)
            if number is not None:
                out[key] = max(0, number)
    return out
