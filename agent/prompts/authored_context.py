"""What the agent wrote is not an instruction until the user says so: a record of the
project context files (`.hermes.md`, HERMES.md, AGENTS.md, CLAUDE.md, .cursorrules)
whose bytes hermes itself wrote, so a later session loads them only once approved.

HERMES_HOME/authored_context.json (0600; HERMES_HOME is hidden from the sandbox, so a
command cannot approve its own file), keyed by the file's real path:
    {"written": {path: {"sha256": ..., "before": text the user last had, "session": ...}},
     "answers": {path: {"sha256": ..., "approved": true|false}},
     "unfollowed": {root: session}}
Recorded by write_file and patch (`noting`) and by the terminal's change index
(agent/tools/term_changes.py `Watch.done`), keyed by the real path, so a link named
`AGENTS.md` records the file it leads to (and a later write to that file is recorded
too). Where the change index is off (`unfollowed`: a workspace of more than its file
limit), every context file beneath it is treated as written by the agent. A file is the
agent's while its bytes are the ones recorded (an edit by the user makes it the user's
again). At session start
(`status`): "user" and "approved" files load; "pending" ones (the agent's, not answered)
and "declined" ones do not - the REPL shows the diff once and asks (frontend/factory.py
`review`), one-shot and the gateway skip it with a notice. An answer holds for those
bytes; a later agent write asks again.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import safefs
from agent.prompts.context_search import PRECEDENCE
from memory.private import write_private

RECORD = "authored_context.json"
MAX_BEFORE = 64_000  # characters of the user's version kept for the diff


def is_context_name(path: str | os.PathLike[str]) -> bool:
    return os.path.basename(path) in PRECEDENCE


def _load(home: Path) -> dict[str, Any]:
    try:
        data = json.loads((home / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"written": {}, "answers": {}}
    if not isinstance(data, dict):
        return {"written": {}, "answers": {}}
    for key in ("written", "answers"):
        if not isinstance(data.get(key), dict):
            data[key] = {}
    return data


def _save(home: Path, data: dict[str, Any]) -> None:
    write_private(home / RECORD, json.dumps(data, indent=1, sort_keys=True))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def written(home: Path) -> frozenset[str]:
    """The real paths of every context file hermes wrote (one read, for a whole command)."""
    return frozenset(_load(home)["written"])


def known(home: Path, path: str | os.PathLike[str]) -> bool:
    """`path` is (the target of) a context file hermes wrote: a link `AGENTS.md ->
    notes.md` makes notes.md one, and a later write to it is the agent's again."""
    return os.path.realpath(path) in _load(home)["written"]


def record(home: Path, path: str, before: bytes | None, after: bytes, session: str = "") -> None:
    """hermes wrote `after` to the context file `path` (which held `before`); `path` may
    be a link named like a context file, or the file such a link leads to (`known`)."""
    if not is_context_name(path) and not known(home, path):
        return
    real = os.path.realpath(path)
    data = _load(home)
    old = data["written"].get(real)
    if isinstance(old, dict) and before is not None and old.get("sha256") == _digest(before):
        kept = old.get("before")  # still the agent's: the user's version stays the one shown
    else:
        kept = None if before is None else before.decode("utf-8", "replace")[:MAX_BEFORE]
    data["written"][real] = {"sha256": _digest(after), "before": kept, "session": session}
    _save(home, data)


@contextlib.contextmanager
def noting(home: Path, path: Path, session: str = "") -> Iterator[None]:
    """Around a file tool's write of `path`: record it when it is a context file, the
    target of a context-file link hermes made (`known`), or of one beside it (the user's
    `AGENTS.md -> notes.md`: the write to notes.md is recorded under that name)."""
    name = _linked_beside(path)
    if not is_context_name(name) and not known(home, name):
        yield
        return
    before = _read(str(path))
    yield
    after = _read(str(path))
    if after is not None:
        record(home, str(name), before, after, session)


def unfollowed(home: Path, root: str, session: str = "") -> None:
    """The terminal's change index is off under `root` (too many files, a broken
    checkpoint store): a command there may have written any context file, so every one beneath it
    counts as the agent's until the user answers for its bytes."""
    real = os.path.realpath(root)
    data = _load(home)
    roots = data.setdefault("unfollowed", {})
    if not isinstance(roots, dict):
        roots = data["unfollowed"] = {}
    if real not in roots:
        roots[real] = session
        _save(home, data)


def _linked_beside(path: Path) -> Path:
    """A context-file link in `path`'s folder that leads to `path`, else `path`."""
    if is_context_name(path):
        return path
    real = os.path.realpath(path)
    for name in PRECEDENCE:
        link = path.parent / name
        if link.is_symlink() and os.path.realpath(link) == real:
            return link
    return path


def status(home: Path, path: str, data: bytes) -> str:
    """"user" | "approved" | "pending" | "declined" for `path` holding `data` now."""
    real = os.path.realpath(path)
    table = _load(home)
    written = table["written"].get(real)
    digest = _digest(data)
    roots = table.get("unfollowed")
    blind = isinstance(roots, dict) and any(
        real == r or real.startswith(r.rstrip("/") + "/") for r in roots)
    if not blind and (not isinstance(written, dict) or written.get("sha256") != digest):
        return "user"
    answer = table["answers"].get(real)
    if isinstance(answer, dict) and answer.get("sha256") == digest:
        return "approved" if answer.get("approved") is True else "declined"
    return "pending"


def answer(home: Path, path: str, data: bytes, approved: bool) -> None:
    real = os.path.realpath(path)
    table = _load(home)
    table["answers"][real] = {"sha256": _digest(data), "approved": approved}
    _save(home, table)


def diff(home: Path, path: str, data: bytes) -> str:
    """The change from the user's last version (empty: the agent made the file)."""
    written = _load(home)["written"].get(os.path.realpath(path)) or {}
    before = written.get("before") if isinstance(written, dict) else None
    now = data.decode("utf-8", "replace")
    lines = difflib.unified_diff((before or "").splitlines(keepends=True),
                                 now.splitlines(keepends=True),
                                 "before (yours)" if before is not None else "/dev/null",
                                 "now (written by hermes)")
    return "".join(lines)


def _read(path: str) -> bytes | None:
    try:
        return safefs.read_bytes(os.path.dirname(path) or ".", os.path.basename(path), links=False)
    except (OSError, ValueError):
        return None
