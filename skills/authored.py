"""Which skills hermes wrote itself: a small sidecar file beside the SKILL.md.

`skill_manage` writes `<skill folder>/.hermes-authored.json` next to each SKILL.md it
writes: the session that wrote it, when it was created and last changed, and the SHA-256
of the SKILL.md bytes it wrote. A skill is the agent's own only while that hash matches
the SKILL.md on disk; everything else - a skill the user installed, or one of the
agent's the user has since edited by hand - is the user's, which the agent changes only
with the user's approval.

Why a sidecar and not a front-matter key: the SKILL.md stays exactly the text the model
wrote (and the format other tools read); a key in the text could be written into a
user's skill by anyone editing it, while a hash of the bytes also notices a hand edit;
and the dates for `/skills` live where the text does not have to carry them. The file is
hidden (dot name), so `Skill.files()` never lists it and skill_view never shows it.

What the agent wrote is not an instruction until the user says so: a later session's
index leaves out an installation skill that is still the agent's text until the user
approved those bytes (`withhold`; the REPL asks at start, frontend/context_review.py,
and the answer - `approved` or `declined`, the SHA-256 it was given for - is kept in the
sidecar). The session that wrote it reads it at once (skill_view); a gateway tenant's
own skills (`gateway.skills_writable`, the operator's choice) are not held.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import safefs
from skills.loader import Skill, SkillCatalog

SIDECAR = ".hermes-authored.json"


@dataclass(frozen=True)
class Authored:
    """What the sidecar says: the writing session, ISO UTC times, the text's hash."""

    session: str
    created: str
    updated: str
    sha256: str
    approved: str = ""  # the SHA-256 the user approved, "" when none
    declined: str = ""  # the SHA-256 the user declined

    def when(self) -> str:
        """'2026-12-01 17:52 UTC' of the last change (the stored time, shortened)."""
        return self.updated[:16].replace("T", " ") + " UTC"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_sidecar(folder: Path) -> Authored | None:
    """The sidecar of the skill in `folder`, None when absent or unreadable."""
    try:
        raw = json.loads(safefs.read_bytes(str(folder), SIDECAR, links=False))
        return Authored(str(raw["session"]), str(raw["created"]), str(raw["updated"]),
                        str(raw["sha256"]), str(raw.get("approved", "")),
                        str(raw.get("declined", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def agent_written(folder: Path) -> Authored | None:
    """The sidecar when the SKILL.md in `folder` is still the agent's text, else None
    (no sidecar, or the file changed since the agent wrote it)."""
    found = read_sidecar(folder)
    if found is None:
        return None
    try:
        data = safefs.read_bytes(str(folder), "SKILL.md", links=False)
    except OSError:
        return None
    return found if digest(data) == found.sha256 else None


def sidecar_bytes(previous: Authored | None, session: str, now: float, text: bytes) -> bytes:
    """The sidecar for `text` written now by `session` (keeping the first creation time)."""
    stamp = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    created = previous.created if previous is not None else stamp
    body = {"author": "hermes", "session": session, "created": created, "updated": stamp,
            "sha256": digest(text)}
    return (json.dumps(body, indent=2, sort_keys=True) + "\n").encode()


def mark(folder: Path) -> str:
    """' [written by hermes, 2026-12-01 17:52 UTC]' for a skill the agent wrote (its
    sidecar, noting a hand edit since), '' for the user's own."""
    found = read_sidecar(folder)
    if found is None:
        return ""
    edited = "" if agent_written(folder) is not None else ", edited by hand since"
    return f" [written by hermes, {found.when()}{edited}]"


def skill_note(skill: Skill, indexed: SkillCatalog) -> str:
    """/skills' note on `skill`: who wrote it and when, and whether the running session's
    index (`indexed`, the SkillCatalog it was built from) shows it yet."""
    note = mark(skill.root).strip(" []") if skill.source != "bundled" else ""
    known = indexed.get(skill.name)
    if known is None or known.body != skill.body:
        note += ("; " if note else "") + "in the index from your next session"
    return note


def pending(folder: Path) -> str | None:
    """"pending" or "declined" for a SKILL.md that is still the agent's text and not
    approved by the user for these bytes; None when it may be loaded."""
    found = agent_written(folder)
    if found is None or found.approved == found.sha256:
        return None
    return "declined" if found.declined == found.sha256 else "pending"


def answer(folder: Path, approved: bool) -> None:
    """Keep the user's answer about the skill's current text in its sidecar."""
    raw = json.loads(safefs.read_bytes(str(folder), SIDECAR, links=False))
    raw["approved" if approved else "declined"] = raw["sha256"]
    safefs.write_atomic(str(folder), SIDECAR,
                        (json.dumps(raw, indent=2, sort_keys=True) + "\n").encode(), links=False)


def withhold(catalog: SkillCatalog, own: Collection[str] = ()) -> SkillCatalog:
    """`catalog` without the installation's skills the agent wrote and the user has not
    approved (one warning each): what a new session indexes. Those written by a session
    in `own` (this process' earlier sessions: /new, a compaction's child) stay in."""
    kept, warnings = {}, list(catalog.warnings)
    for name, skill in catalog.skills.items():
        said = pending(skill.root) if skill.source == "user" else None
        writer = read_sidecar(skill.root) if said else None
        if said is None or (writer is not None and writer.session in own):
            kept[name] = skill
        elif said == "pending":
            warnings.append(f"skill {name} was written by hermes and is not loaded until you "
                            "approve it (start `hermes`: the REPL shows it once and asks)")
        else:
            warnings.append(f"skill {name} was written by hermes and you declined it: not "
                            "loaded until it changes")
    return SkillCatalog(kept, warnings, dict(catalog.broken))
