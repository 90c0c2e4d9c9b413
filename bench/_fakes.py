"""Shared bench helpers: a scripted project on disk and the ideal-read cache model.

The ideal model re-derives every prefix of a request from its wire body with the fake
provider's own block splitting and token model (tests/fakes/cache.py), independently of
the breakpoints the agent placed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.anthropic_api import build_blocks
from tests.fakes.cache import Prompt

IDEAL_DEFINITION = (
    "ideal read of request i (sent at fake time t, model m) = the largest cum_tokens(k) over "
    "block boundaries k of i's prompt (tools -> system -> messages, the fake's token model) "
    "such that blocks 0..k are byte-identical to blocks 0..k of an earlier successful request "
    "j of this session with model m, that prefix was last sent (by j or by any later request "
    "containing it) at a time s with t - s < TTL (5m, the session's cache_ttl; so a prefix "
    "left idle across the 400 s gap is dead), and cum_tokens(k) >= m's minimum cacheable size. "
    "It assumes a perfect strategy (any number of breakpoints, no 20-block lookback limit)."
)


def filler(seed: int, words: int) -> str:
    """Deterministic prose-like text of about `words` words."""
    vocab = ("cache", "prefix", "tokens", "request", "session", "breakpoint", "agent",
             "module", "config", "parser", "handler", "retry", "stream", "usage", "model",
             "history", "message", "tool", "result", "schema", "index", "window")
    out = []
    value = seed * 7919 + 13
    for i in range(words):
        value = (value * 1103515245 + 12345) % (2**31)
        out.append(vocab[value % len(vocab)])
        if i % 12 == 11:
            out[-1] += "."
    return " ".join(out)


def make_project(root: Path, modules: int = 16) -> None:
    """A small repository for read_file / search_files / patch to work on."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "notes.txt").write_text("Release checklist\n" + filler(1, 120) + "\n")
    (root / "README.md").write_text("# demo\n\n" + filler(2, 80) + "\n")
    (root / "AGENTS.md").write_text("Run the tests with `pytest -q`. Keep functions small.\n")
    src = root / "src"
    src.mkdir(exist_ok=True)
    for i in range(modules):
        body = [f'"""Module {i}: {filler(100 + i, 10)}"""', ""]
        for f in range(4):
            body += [f"def func_{i}_{f}(value):", f"    # {filler(i * 10 + f, 14)}",
                     f"    return value * {f + 1} + {i}", ""]
        (src / f"mod_{i:02d}.py").write_text("\n".join(body))


@dataclass
class IdealCache:
    """Every prefix a perfect breakpoint strategy could have in the cache, with expiry."""

    ttl: float
    min_tokens: Any  # callable(model) -> int
    alive: dict[str, float] = field(default_factory=dict)
    blocks: Any = build_blocks  # callable(wire body) -> blocks (the fake API's splitting)

    def observe(self, body: dict[str, Any], now: float) -> tuple[int, int, Prompt]:
        """(ideal read tokens, block index of that prefix or -1, prompt) for one request;
        then record all of its prefixes as alive until now + ttl."""
        prompt = Prompt(body["model"], self.blocks(body))
        minimum = self.min_tokens(body["model"])
        best, where = 0, -1
        for k, digest in enumerate(prompt.hashes):
            if self.alive.get(digest, -1.0) > now and prompt.cum[k] >= minimum:
                best, where = prompt.cum[k], k
        for digest in prompt.hashes:
            self.alive[digest] = now + self.ttl
        return best, where, prompt


def marker_blocks(prompt: Prompt) -> list[int]:
    """Block indices that carry a cache marker (cache_control, prompt_cache_breakpoint)."""
    return [i for i, block in enumerate(prompt.blocks) if block.markers]
