"""At start, the context file or skill hermes wrote in an earlier session
(agent/prompts/authored_context.py, skills/authored.py) meets the user: the REPL shows the change once and asks; the answer (yes or no) is kept
for those bytes. Without a person (one-shot, the gateway) nothing is asked: the file is
left out of the prompt with a notice (agent/context.py `context_problems`)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path

import safefs
from agent.prompts import authored_context
from agent.prompts.context_search import candidates
from skills.authored import answer as answer_skill
from skills.authored import pending
from skills.loader import discover

AskContext = Callable[[Path, str], bool | None]  # (file, diff) -> yes / no / no answer


def review(home: Path, cwd: Path, ask: AskContext | None) -> None:
    """Ask about each agent-written context file a session here would meet, nearest
    first, until one that loads (the user's, or approved)."""
    found, root = candidates(cwd)
    for path in found:
        try:
            raw = safefs.read_bytes(str(root or cwd), os.path.relpath(path, root or cwd))
        except (OSError, ValueError):
            continue
        said = authored_context.status(home, str(path), raw)
        if said == "pending" and ask is not None:
            reply = ask(path, authored_context.diff(home, str(path), raw))
            if reply is not None:
                authored_context.answer(home, str(path), raw, reply)
                said = "approved" if reply else "declined"
        if said in ("user", "approved"):
            return


def review_skills(home: Path, ask: AskContext | None) -> None:
    """The installation's skills the agent wrote that the user has not answered about:
    each shown once (as a diff from nothing) and the answer kept in its sidecar."""
    if ask is None:
        return
    for skill in discover(home, bundled=home / "no-bundled").skills.values():
        if skill.source == "user" and pending(skill.root) == "pending":
            text = skill.body.splitlines(keepends=True)
            shown = "".join(difflib.unified_diff([], text, "/dev/null", f"{skill.name} (written by hermes)"))
            reply = ask(skill.path, shown)
            if reply is not None:
                answer_skill(skill.root, reply)
