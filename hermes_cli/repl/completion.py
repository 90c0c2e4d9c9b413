"""Tab completion for the REPL, driven by the one slash-command table.

`/mo<TAB>` completes command names; after a command, its table entry's `complete`
field picks the argument source (model, personality, skill, session). Sources are
callables so the completer never holds a stale agent. `@pa<TAB>` completes a path to
mention (MentionCompleter).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from agent.errors import HermesError
from agent.images import looks_like_image
from frontend.command_table import COMMANDS, lookup
from memory.errors import HermesMemoryError

# name -> () -> [(value, description)]
Sources = Mapping[str, Callable[[], Iterable[tuple[str, str]]]]


class SlashCompleter(Completer):
    """Completes `/command` names, then the command's argument from `sources`."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources

    def get_completions(self, document: Document, complete_event: CompleteEvent):
        text = document.text_before_cursor
        if not text.startswith("/") or text.startswith("//") or "\n" in text:
            return
        name, space, arg = text[1:].partition(" ")
        if not space:
            yield from _command_names(name)
            for value, meta in _safe(self.sources.get("commands", list)):  # custom ones
                if value.startswith(name.lower()):
                    yield Completion(f"/{value}", start_position=-(len(name) + 1), display_meta=meta)
            return
        command = lookup(name)
        if command is None or not command.complete or " " in arg.strip():
            return
        source = self.sources.get(command.complete)
        if source is None:
            return
        word = arg.lstrip()
        for value, meta in _safe(source):
            if value.startswith(word) and value != word:
                yield Completion(value, start_position=-len(word), display_meta=meta)


class MentionCompleter(Completer):
    """Completes the path after `@` (files and directories under the current
    directory, or under the directory typed so far); dot-files only when asked for."""

    def __init__(self, cwd: Callable[[], Path] = Path.cwd, limit: int = 50) -> None:
        self.cwd, self.limit = cwd, limit

    def get_completions(self, document: Document, complete_event: CompleteEvent):
        before = document.text_before_cursor
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        if not word.startswith("@") or before.startswith("/"):
            return
        typed = word[1:]
        folder, _, stem = typed.rpartition("/")
        base = Path(folder).expanduser() if folder else Path()
        base = base if base.is_absolute() else self.cwd() / base
        try:
            entries = sorted(base.iterdir(), key=lambda p: p.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            name = entry.name
            if not name.startswith(stem) or (name.startswith(".") and not stem.startswith(".")):
                continue
            value = f"{folder}/{name}" if folder else name
            value += "/" if entry.is_dir() else ""
            kind = "dir" if entry.is_dir() else "image" if looks_like_image(name) else "file"
            yield Completion(value, start_position=-len(typed), display_meta=kind)
            shown += 1
            if shown >= self.limit:
                return


def complete_now(buffer, completer: Completer) -> None:
    """Tab: with a menu open, select the next entry; with exactly one candidate, insert
    it at once (no asynchronous race with a fast Enter); otherwise open the menu."""
    if buffer.complete_state:
        buffer.complete_next()
        return
    event = CompleteEvent(completion_requested=True)
    candidates = list(completer.get_completions(buffer.document, event))
    if len(candidates) == 1:
        buffer.apply_completion(candidates[0])
    else:
        buffer.start_completion(insert_common_part=True)


def _command_names(prefix: str) -> Iterable[Completion]:
    prefix = prefix.lower()
    for command in COMMANDS:
        if command.name.startswith(prefix):
            meta = f"{command.help}  {command.args}".rstrip()
            yield Completion(f"/{command.name}", start_position=-(len(prefix) + 1),
                             display_meta=meta)


def _safe(source: Callable[[], Iterable[tuple[str, str]]]) -> list[tuple[str, str]]:
    """A completion source must never break the prompt: a failing one yields nothing."""
    try:
        return list(source())
    except (HermesError, HermesMemoryError, OSError, sqlite3.Error):
        return []  # e.g. the store is locked: no suggestions this time
