"""GPT-5.6 prompt-cache rules of the fake Responses API (pure; no HTTP).

What the openai SDK (3.57) documents, modelled deterministically:
- `prompt_cache_options` and content parts' `prompt_cache_breakpoint` exist on gpt-5.6 and
  later only; earlier models refuse both with a 400 (`supports_breakpoints`).
- Mode `implicit` (default): one implicit breakpoint - here the end of the prompt - plus
  the latest three explicit ones are written. Mode `explicit`: the latest four explicit
  ones; none -> no caching at all (no read, no write).
- Matching: at the latest 80 explicit breakpoints of the request, exactly there (not
  rounded to a token block), with no content-block lookback limit; in implicit mode the
  implicit breakpoint also matches any block boundary an earlier request wrote.
- Writes are billed on 5.6+ (`cache_write_tokens`, split by TTL 30m/12h); each written
  breakpoint is charged for the tokens between the previous covered position and it; a
  breakpoint whose entry is live already is refreshed, not charged.
- Diagnostics (`comparison_response_id`): the stored fingerprint of the compared response
  against this one -> cache_hit, or cache_miss with the first divergence's reason and
  `cache_missed_tokens`; an unknown id -> comparison_response_not_found; the same prefix
  but nothing read (expired) -> unavailable.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from .cache import Block, PrefixCache, Prompt, canonical, image_tokens

LOOKBACK_BREAKPOINTS = 80
MAX_WRITES = 4
TTLS = {"30m": 1800.0, "12h": 43200.0}
_VERSION = re.compile(r"gpt-(\d+)(?:\.(\d+))?")


def supports_breakpoints(model: str) -> bool:
    """gpt-5.6 and later (gpt-5.6-sol, gpt-6...): the explicit cache controls exist."""
    found = _VERSION.search(model.lower())
    if not found:
        return False
    major, minor = int(found.group(1)), int(found.group(2) or 0)
    return (major, minor) >= (5, 6)


def is_reasoning_model(model: str) -> bool:
    return bool(re.match(r"^(gpt-5|o\d)", model.lower()))


def strip_breakpoints(obj: Any, found: list[dict[str, Any]]) -> Any:
    """A copy without `prompt_cache_breakpoint` keys (collected in found): a marker never
    changes a block's identity or size."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if key == "prompt_cache_breakpoint":
                found.append(value if isinstance(value, dict) else {})
                continue
            out[key] = strip_breakpoints(value, found)
        return out
    if isinstance(obj, list):
        return [strip_breakpoints(v, found) for v in obj]
    return obj


def block(obj: Any, section: str, message: int | None = None, role: str = "") -> Block:
    found: list[dict[str, Any]] = []
    clean = strip_breakpoints(obj, found)
    text = canonical(clean)
    return Block(text, section, message, role=role, markers=found,
                 fixed=image_tokens(clean, text))


@dataclass
class Written:
    read: int = 0
    write_30m: int = 0
    write_12h: int = 0
    written: list[int] = field(default_factory=list)  # block indexes written or refreshed

    @property
    def write(self) -> int:
        return self.write_30m + self.write_12h


def marks(prompt: Prompt, request_ttl: str) -> list[tuple[int, float]]:
    """(block index, ttl seconds) of every explicit breakpoint, in prefix order."""
    out = []
    for index, blk in enumerate(prompt.blocks):
        for marker in blk.markers:
            out.append((index, TTLS.get(marker.get("ttl") or request_ttl, TTLS["30m"])))
    return out


def cache_56(cache: PrefixCache, store: Any, prompt: Prompt, *, mode: str, ttl: str,
             min_tokens: int, now: float) -> Written:
    """Read, then write, under the GPT-5.6 rules (module docstring)."""
    explicit = marks(prompt, ttl)
    result = Written()
    if (mode == "explicit" and not explicit) or not prompt.blocks:
        return result
    request_ttl = TTLS.get(ttl, TTLS["30m"])
    with cache.lock:
        candidates = {i for i, _ in explicit[-LOOKBACK_BREAKPOINTS:]}
        if mode == "implicit":
            candidates |= set(range(len(prompt.blocks)))
        read_end = -1
        for j in sorted(candidates, reverse=True):
            if cache._live(store, prompt.hashes[j], now):
                read_end = j
                break
        if read_end >= 0:
            entry = cache._live(store, prompt.hashes[read_end], now)
            assert entry is not None
            entry.expires = max(entry.expires, now + entry.ttl)
            result.read = prompt.cum[read_end]
        writes = explicit[-(MAX_WRITES - 1 if mode == "implicit" else MAX_WRITES):]
        if mode == "implicit":
            writes = [*writes, (len(prompt.blocks) - 1, request_ttl)]
        covered = result.read
        for index, seconds in sorted(set(writes)):
            if prompt.cum[index] < min_tokens:
                continue
            result.written.append(index)
            if index <= read_end or cache._live(store, prompt.hashes[index], now):
                cache._put(store, prompt.hashes[index], seconds, now)
                covered = max(covered, prompt.cum[index])
                continue
            span = max(0, prompt.cum[index] - covered)
            if seconds >= TTLS["12h"]:
                result.write_12h += span
            else:
                result.write_30m += span
            covered = prompt.cum[index]
            cache._put(store, prompt.hashes[index], seconds, now)
    return result


# ---------------------------------------------------------------- diagnostics

@dataclass(frozen=True)
class Fingerprint:
    """What the diagnosis compares between two responses."""

    model: str
    cache_key: str | None
    tools: str
    effort: str | None
    text_format: str
    hashes: tuple[str, ...]
    cum: tuple[int, ...]


def fingerprint(body: dict[str, Any], prompt: Prompt) -> Fingerprint:
    tools = hashlib.sha256(canonical(body.get("tools") or []).encode()).hexdigest()
    effort = (body.get("reasoning") or {}).get("effort")
    text_format = canonical((body.get("text") or {}).get("format") or {})
    return Fingerprint(body["model"], body.get("prompt_cache_key"), tools, effort,
                       text_format, tuple(prompt.hashes), tuple(prompt.cum))


def diagnose(old: Fingerprint | None, new: Fingerprint, read: int) -> dict[str, Any]:
    if old is None:
        return {"type": "comparison_response_not_found"}
    total = new.cum[-1] if new.cum else 0
    for reason, changed in (("model_changed", old.model != new.model),
                            ("prompt_cache_key_changed", old.cache_key != new.cache_key),
                            ("tools_changed", old.tools != new.tools),
                            ("reasoning_effort_changed", old.effort != new.effort),
                            ("text_format_changed", old.text_format != new.text_format)):
        if changed:
            return {"type": "cache_miss", "reason": reason, "cache_missed_tokens": total,
                    "comparison_reusable_tokens": old.cum[-1] if old.cum else 0}
    same = 0
    for a, b in zip(old.hashes, new.hashes, strict=False):
        if a != b:
            break
        same += 1
    if same < len(old.hashes):
        kept = new.cum[same - 1] if same else 0
        return {"type": "cache_miss", "reason": "input_changed",
                "cache_missed_tokens": max(0, total - kept),
                "comparison_reusable_tokens": old.cum[-1] if old.cum else 0}
    return {"type": "cache_hit"} if read > 0 else {"type": "unavailable"}
