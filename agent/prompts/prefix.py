"""Prefix sharing across sessions: a session's stable blocks, how their
boundaries are stored, and the OpenAI cache-routing key.

A new session's stable text is its blocks joined with BLOCK_SEPARATOR; the boundaries
are stored beside it as a layout - [[scope, chars], ...] in the sessions table's
`stable_layout` column (migration 0003_stable_layout) - so a resumed session cuts the
very same blocks out of the very same stored string and sends them byte-identically.
A session stored before the column (layout NULL), or one whose layout does not add up
to its text, is sent as ONE stable block, exactly what it sent when it was stored.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from agent.prompts.prompt import BLOCK_SEPARATOR, SCOPES

Blocks = tuple[tuple[str, str], ...]  # (scope, text) in prefix order
Layout = tuple[tuple[str, int], ...]  # (scope, length in characters)

LEGACY_SCOPE = "session"  # an old single block is not shared with anyone


def layout_of(blocks: Blocks) -> Layout:
    return tuple((scope, len(text)) for scope, text in blocks)


def split(stable: str, layout: Layout) -> Blocks:
    """The blocks `layout` cuts from `stable`; one legacy block when it does not fit."""
    if not layout:
        return ((LEGACY_SCOPE, stable),)
    blocks, at = [], 0
    for index, (scope, length) in enumerate(layout):
        if index:
            if stable[at:at + len(BLOCK_SEPARATOR)] != BLOCK_SEPARATOR:
                return ((LEGACY_SCOPE, stable),)
            at += len(BLOCK_SEPARATOR)
        blocks.append((scope, stable[at:at + length]))
        at += length
    if at != len(stable) or any(not text for _, text in blocks):
        return ((LEGACY_SCOPE, stable),)
    return tuple(blocks)


def relayout(layout: Layout, old: str, new: str) -> Layout:
    """The layout after an edit confined to the LAST block (the model line of the
    environment facts, see agent.sessions.session.with_model)."""
    if not layout:
        return layout
    scope, length = layout[-1]
    return (*layout[:-1], (scope, length + len(new) - len(old)))


def encode(layout: Layout) -> str | None:
    return json.dumps([list(item) for item in layout]) if layout else None


def decode(raw: object) -> Layout:
    """The stored layout; () for a legacy row or anything malformed."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return ()
    if not isinstance(raw, list):
        return ()
    out = []
    for item in raw:
        if (not isinstance(item, list) or len(item) != 2 or item[0] not in SCOPES
                or not isinstance(item[1], int) or item[1] <= 0):
            return ()
        out.append((item[0], item[1]))
    return tuple(out)


def cache_key(home: Path, provider: str, model: str) -> str:
    """OpenAI `prompt_cache_key`: one per installation + provider + model, so every
    session, sub-agent and gateway chat of this installation is routed to the machines
    holding the prefix they share (a per-session key kept them apart)."""
    seed = f"{Path(home).expanduser().resolve()}\n{provider}\n{model}"
    return "hermes-" + hashlib.sha256(seed.encode()).hexdigest()[:24]
