"""Deterministic token model and prefix-cache model shared by both fake APIs.

A prompt is a list of blocks in prefix order (tools -> system -> messages). A block's
tokens are ceil(len(canonical JSON) / 4), at least 1, with every `cache_control` key
removed first, so marking a block never changes its identity or size. Prefix identity
is a SHA-256 chain over the blocks, seeded with the model name.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any

FIVE_MINUTES = 300.0
ONE_HOUR = 3600.0
ONE_DAY = 86400.0
LOOKBACK_BLOCKS = 20

# First matching substring wins (model names are normalised: lower case, "." -> "-").
ANTHROPIC_MIN_CACHE_TOKENS: list[tuple[str, int]] = [
    ("opus-5", 512),
    ("fable-5", 512),
    ("mythos-5", 512),
    ("sonnet-5", 1024),
    ("sonnet-4-5", 1024),
    ("sonnet-4-6", 1024),
    ("opus-4-8", 1024),
    ("opus-4-1", 1024),
    ("opus-4-7", 2048),
    ("haiku-3", 2048),
    ("3-haiku", 2048),
    ("3-5-haiku", 2048),
    ("opus-4-5", 4096),
    ("opus-4-6", 4096),
    ("haiku-4-5", 4096),
]
DEFAULT_MIN_CACHE_TOKENS = 1024


def anthropic_min_tokens(model: str) -> int:
    name = model.lower().replace(".", "-")
    for key, tokens in ANTHROPIC_MIN_CACHE_TOKENS:
        if key in name:
            return tokens
    return DEFAULT_MIN_CACHE_TOKENS


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def strip_cache_control(obj: Any, found: list[dict[str, Any]] | None = None) -> Any:
    """Return a copy of obj without any `cache_control` key; collect the markers in found."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            if key == "cache_control":
                if found is not None and value is not None:
                    found.append(value if isinstance(value, dict) else {})
                continue
            out[key] = strip_cache_control(value, found)
        return out
    if isinstance(obj, list):
        return [strip_cache_control(v, found) for v in obj]
    return obj


def count_tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


@dataclass
class Block:
    """One prompt block: `text` is its canonical JSON (tokens come from it alone);
    `role` (first block of a message) and `salt` add identity without tokens."""

    text: str
    section: str
    message: int | None = None
    salt: str = ""
    role: str = ""
    markers: list[dict[str, Any]] = field(default_factory=list)
    fixed: int | None = None  # a block holding images: counted by the provider's formula

    @property
    def tokens(self) -> int:
        return count_tokens(self.text) if self.fixed is None else self.fixed


def image_tokens(clean: Any, text: str) -> int | None:
    """Tokens of a block with images (its text without the pixels + each image by its
    provider's formula, tests/fakes/images.py); None for a block without. Raises
    ImageRefused for an image the real API would refuse."""
    if '"image' not in text and '"input_image"' not in text:
        return None
    from .images import count

    pixels, rest = count(clean)
    return count_tokens(canonical(rest)) + pixels if pixels else None


def make_block(obj: Any, section: str, message: int | None = None, role: str = "") -> Block:
    markers: list[dict[str, Any]] = []
    clean = strip_cache_control(obj, markers)
    text = canonical(clean)
    return Block(text, section, message, role=role, markers=markers,
                 fixed=image_tokens(clean, text))


@dataclass
class Prompt:
    model: str
    blocks: list[Block]
    hashes: list[str] = field(default_factory=list)
    cum: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        digest = hashlib.sha256(("model:" + self.model).encode()).hexdigest()
        total = 0
        for block in self.blocks:
            step = hashlib.sha256(
                f"{digest}\n{block.role}\n{block.salt}\n{block.text}".encode())
            digest = step.hexdigest()
            total += block.tokens
            self.hashes.append(digest)
            self.cum.append(total)

    @property
    def total(self) -> int:
        return self.cum[-1] if self.cum else 0

    def section_hash(self, section: str) -> str:
        h = hashlib.sha256()
        for block in self.blocks:
            if block.section == section:
                h.update(block.text.encode() + b"\n")
        return h.hexdigest()

    def message_hashes(self) -> list[str]:
        per: dict[int, Any] = {}
        for block in self.blocks:
            if block.message is not None:
                per.setdefault(block.message, hashlib.sha256()).update(
                    (block.role + "\n" + block.text + "\n").encode())
        return [per[i].hexdigest() for i in sorted(per)]


@dataclass
class Entry:
    expires: float
    ttl: float
    ready: float = 0.0  # wall-clock monotonic time from which it can be read (prefill)


@dataclass
class CacheResult:
    read: int = 0
    write_5m: int = 0
    write_1h: int = 0

    @property
    def write(self) -> int:
        return self.write_5m + self.write_1h


class PrefixCache:
    """Prefix entries per store (anthropic: one store; openai: per model + cache key)."""

    def __init__(self) -> None:
        self._stores: dict[Any, dict[str, Entry]] = {}
        # automatic (OpenAI) caching: per store, prefix hash -> {(role, next block text):
        # expiry}, to find a match that ends inside a block (see _partial)
        self._next: dict[Any, dict[str, dict[tuple[str, str], float]]] = {}
        self.lock = threading.RLock()

    def clear(self) -> None:
        with self.lock:
            self._stores.clear()
            self._next.clear()

    def entries(self, store: Any) -> dict[str, Entry]:
        with self.lock:
            return dict(self._stores.get(store, {}))

    def _live(self, store: Any, key: str, now: float) -> Entry | None:
        entry = self._stores.get(store, {}).get(key)
        if entry is None or entry.expires <= now or entry.ready > time.monotonic():
            return None
        return entry

    def _put(self, store: Any, key: str, ttl: float, now: float, ready: float = 0.0) -> None:
        entries = self._stores.setdefault(store, {})
        old = entries.get(key)
        if old is not None and old.expires > now and old.expires >= now + ttl \
                and old.ready <= ready:
            return
        entries[key] = Entry(now + ttl, ttl, ready)

    def anthropic(self, prompt: Prompt, breakpoints: list[tuple[int, float]],
                  min_tokens: int, now: float, prefill: float = 0.0) -> CacheResult:
        """Read via 20-block lookback from each breakpoint, then write new breakpoints.
        `prefill`: seconds before what this request writes can be read (an entry is
        usable only once the response that wrote it has begun: requests sent together
        each write it)."""
        store = "anthropic"
        ready = time.monotonic() + prefill if prefill else 0.0
        with self.lock:
            read_end = -1
            for index, _ttl in breakpoints:
                for j in range(index, max(-1, index - LOOKBACK_BLOCKS), -1):
                    if j > read_end and self._live(store, prompt.hashes[j], now):
                        read_end = j
                        break
            result = CacheResult()
            if read_end >= 0:
                entry = self._live(store, prompt.hashes[read_end], now)
                assert entry is not None
                entry.expires = now + entry.ttl
                result.read = prompt.cum[read_end]
            covered = result.read
            for index, ttl in breakpoints:
                if prompt.cum[index] < min_tokens:
                    continue
                if index <= read_end:
                    if not self._live(store, prompt.hashes[index], now):
                        self._put(store, prompt.hashes[index], ttl, now)
                    continue
                span = prompt.cum[index] - covered
                if ttl >= ONE_HOUR:
                    result.write_1h += span
                else:
                    result.write_5m += span
                covered = prompt.cum[index]
                self._put(store, prompt.hashes[index], ttl, now, ready)
            return result

    def _partial(self, store: Any, prompt: Prompt, best: int, now: float) -> int:
        """Tokens of block best+1 that match, from its start, a live block that followed
        the same prefix before: OpenAI caches token prefixes, not messages, so a system
        message that differs only near its end still hits up to the difference."""
        if best + 1 >= len(prompt.blocks):
            return 0
        parent = prompt.hashes[best] if best >= 0 else "model:" + prompt.model
        block = prompt.blocks[best + 1]
        longest = 0
        for (role, text), expires in self._next.get(store, {}).get(parent, {}).items():
            if expires <= now or role != block.role:
                continue
            limit = min(len(text), len(block.text))
            same = next((i for i in range(limit) if text[i] != block.text[i]), limit)
            longest = max(longest, same)
        return longest // 4

    def _remember(self, store: Any, prompt: Prompt, ttl: float, now: float) -> None:
        nexts = self._next.setdefault(store, {})
        parents = ["model:" + prompt.model, *prompt.hashes[:-1]]
        for parent, block in zip(parents, prompt.blocks, strict=True):
            nexts.setdefault(parent, {})[(block.role, block.text)] = now + ttl

    def automatic(self, store: Any, prompt: Prompt, *, min_tokens: int, step: int,
                  ttl: float, now: float) -> tuple[int, int]:
        """OpenAI-style automatic caching. Returns (cached_tokens, cache_write_tokens)."""
        with self.lock:
            best = -1
            for j in range(len(prompt.hashes) - 1, -1, -1):
                if self._live(store, prompt.hashes[j], now):
                    best = j
                    break
            cached = 0
            eligible = prompt.total >= min_tokens
            matched = (prompt.cum[best] if best >= 0 else 0) + self._partial(store, prompt, best, now)
            if eligible and matched > 0:
                cached = (matched // step) * step
                if cached < min_tokens:
                    cached = 0
            if best >= 0:
                for j in range(best + 1):
                    entry = self._live(store, prompt.hashes[j], now)
                    if entry is not None:
                        entry.expires = max(entry.expires, now + entry.ttl)
            for key in prompt.hashes:
                self._put(store, key, ttl, now)
            self._remember(store, prompt, ttl, now)
            write = 0
            if eligible:
                write = max(0, (prompt.total // step) * step - cached)
            return cached, write
