"""Writing a session's own skills: validation and the file changes (no policy here).

The `skill_manage` tool (agent/tools/skill_manage.py) decides who may change what; this
module checks a SKILL.md text with the loader's own parser (one parser: the same rules
discovery applies, the injection scanner included) and turns a create, patch or delete
into file changes beneath the session's skills folder (`Shelf`), each applied through
safefs (no link followed, atomic replace), so the caller can checkpoint every path first.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import safefs
from skills.authored import SIDECAR, Authored, sidecar_bytes
from skills.loader import SKILL_FILE, Skill, SkillError, check_name, parse_text

#: a SKILL.md the agent writes: ~5,000 tokens at most (the bundled ones are ~2,300
#: characters); skill_view puts the whole text into the conversation each time
MAX_CHARS = 20_000


@dataclass(frozen=True)
class Shelf:
    """Where a session's own skills are written: `root` (HERMES_HOME/skills for the
    operator, HERMES_HOME/tenants/<name>/skills for a gateway tenant) and the source
    name discovery gives the skills found there ("user" or "tenant")."""

    root: Path
    source: str


@dataclass(frozen=True)
class Change:
    """One file change: `data` None removes the file."""

    path: Path
    data: bytes | None


def checked(shelf: Shelf, name: str, text: str, scan: Callable[[str], str | None] | None,
            folder: Path) -> Skill:
    """The skill `text` defines when it is a valid SKILL.md for `name` (front matter,
    name, description, size, the injection scanner); raises SkillError saying why not."""
    check_name(name)
    if len(text) > MAX_CHARS:
        raise SkillError(f"the skill is {len(text):,} characters long (max {MAX_CHARS:,}); "
                         "keep SKILL.md to the steps that matter")
    skill = parse_text(folder / SKILL_FILE, shelf.source, scan, text)
    if skill.name != name:
        raise SkillError(f"the front matter says name: {skill.name}, but the call names "
                         f"'{name}'; make them the same")
    return skill


def replaced_once(text: str, old: str, new: str) -> str:
    """`text` with the one occurrence of `old` replaced by `new`; SkillError otherwise."""
    if not old:
        raise SkillError("'old' is empty; give a unique part of the current SKILL.md text")
    count = text.count(old)
    if count == 0:
        raise SkillError("'old' is not in the skill's SKILL.md; read it with skill_view and "
                         "copy the exact text")
    if count > 1:
        raise SkillError(f"'old' occurs {count} times in the SKILL.md; include more of the "
                         "surrounding text so it occurs once")
    return text.replace(old, new, 1)


def write_changes(folder: Path, text: str, previous: Authored | None, session: str,
                  now: float) -> list[Change]:
    """SKILL.md first, then the sidecar that marks it as the agent's."""
    data = text.encode("utf-8")
    return [Change(folder / SKILL_FILE, data),
            Change(folder / SIDECAR, sidecar_bytes(previous, session, now, data))]


def delete_changes(folder: Path) -> list[Change]:
    return [Change(folder / SKILL_FILE, None), Change(folder / SIDECAR, None)]


def apply(shelf: Shelf, change: Change) -> None:
    """Make one change beneath `shelf.root` (created 0700 when missing); a link
    anywhere on the way is refused (safefs.Escape), never followed."""
    shelf.root.mkdir(mode=0o700, parents=True, exist_ok=True)
    rel = change.path.relative_to(shelf.root).as_posix()
    if change.data is None:
        with contextlib.suppress(FileNotFoundError):
            safefs.unlink(str(shelf.root), rel, links=False)
        with contextlib.suppress(OSError):  # the folder goes only when nothing else is in it
            os.rmdir(change.path.parent)
        return
    safefs.write_atomic(str(shelf.root), rel, change.data, links=False, mode=0o600)
