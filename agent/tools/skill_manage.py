"""skill_manage: the agent writes its own skills - create, patch, delete a SKILL.md.

Where: `ctx.services.skill_shelf` (skills.manage.Shelf): HERMES_HOME/skills for the
operator, the tenant's own HERMES_HOME/tenants/<name>/skills in the gateway (never the
installation's; off unless `gateway.skills_writable`). What is checked: the name, the
front matter and the size with the loader's own parser; the whole text with the
injection scanner every prompt input goes through (memory.threats.scan) and with the
secret scanner. A skill the agent did not write - bundled, installed by the user, or
edited by hand since (skills.authored) - is changed only with the user's approval
(`ctx.approve`; --yolo does not answer it), refused where no one can be asked; bundled
skills and, for a tenant, the installation's skills are never changed.

Every file is checkpointed before it changes (agent.checkpoints, `own`: HERMES_HOME is
hidden from tools, not from hermes), so /undo of the turn puts the previous text back.
The running session's prompt never changes: its skills index is part of the cached
prefix, so a change joins the index at the next session (or compaction's child), and
skill_view reads it at once (agent/tools/skills_list.py `live`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import safefs
from agent.checkpoints import checkpointed
from agent.errors import ToolError
from agent.events import Notice
from agent.tools.registry import Tool, ToolContext, require
from agent.tools.skills_list import live
from memory.tenants import skills_dir
from memory.threat_acts import skill_threat
from memory.threats import scan, scan_secrets
from skills.authored import Authored, agent_written
from skills.loader import SKILL_FILE, Skill, SkillCatalog, SkillError, check_name
from skills.manage import Shelf, apply, checked, delete_changes, replaced_once, write_changes

ACTIONS = ("create", "patch", "delete")


def skill_scan(text: str) -> str | None:
    """The scanner every prompt input goes through, plus what no skill may hold
    (memory.threat_acts.skill_threat)."""
    return scan(text) or skill_threat(text)


def shelf_for(home: Path, owner: str | None, writable: bool) -> Shelf | None:
    """Where a session of `owner` writes skills: the installation's folder for the
    operator (None), the tenant's own for a gateway tenant; None when writes are off."""
    if not writable:
        return None
    return Shelf(skills_dir(home, owner), "user" if owner is None else "tenant")


def skill_manage(args: dict[str, Any], ctx: ToolContext) -> str:
    shelf: Shelf | None = ctx.services.skill_shelf
    if shelf is None or ctx.services.skills is None:
        raise ToolError("writing skills is not available in this session")
    action = require(args, "action")
    if action not in ACTIONS:
        raise ToolError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
    name = require(args, "name").strip()
    try:
        check_name(name)
    except SkillError as exc:
        raise ToolError(f"bad skill name: {exc.message}") from None
    skills = live(ctx)
    existing = skills.get(name)
    folder = _folder(shelf, skills, existing, name, action)
    if action == "delete":
        _may_change(ctx, folder, name, action)
        changes = delete_changes(folder)
    else:
        text = _text(args, existing, action).removeprefix("\ufeff")
        try:
            checked(shelf, name, text, skill_scan, folder)
        except SkillError as exc:
            raise ToolError(f"skill not written: {exc.message}") from None
        secret = scan_secrets(text)
        if secret:
            raise ToolError(f"skill not written: it {secret}; skills are read by every later "
                            "session, so name the variable that holds it instead")
        previous = _may_change(ctx, folder, name, action)
        changes = write_changes(folder, text, previous, ctx.session_id, time.time())
    for change in changes:
        with checkpointed(ctx, change.path, own=True):
            try:
                apply(shelf, change)
            except safefs.Escape:
                raise ToolError(f"refused: a symbolic link stands in {change.path.parent}; "
                                "skills are written only into real folders") from None
    notice = _notice(action, name, existing)
    ctx.state.pending_events.append(Notice(notice))
    where = folder / SKILL_FILE
    done = {"create": f"Wrote {where}.", "patch": f"Patched {where}.",
            "delete": f"Deleted {where} (/undo puts it back)."}[action]
    return f"{done} {notice}."


def _folder(shelf: Shelf, skills: SkillCatalog, existing: Skill | None, name: str,
            action: str) -> Path:
    """The folder the action writes: the existing skill's, else `<shelf>/<name>`."""
    if existing is not None and existing.source == "bundled":
        raise ToolError(f"'{name}' is a skill bundled with hermes and is never changed; "
                        + ("create yours under another name" if action == "create"
                           else "create a skill of your own under another name instead"))
    if existing is not None and existing.source != shelf.source:
        raise ToolError(f"'{name}' is a skill installed for everyone here and cannot be "
                        "changed from this session; give your own skill another name")
    if existing is not None:
        return existing.root
    folder = shelf.root / name
    if action != "create" and not (folder / SKILL_FILE).exists():
        close = skills.close_names(name)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise ToolError(f"unknown skill '{name}'.{hint} skills_list shows them all")
    return folder


def _text(args: dict[str, Any], existing: Skill | None, action: str) -> str:
    if action == "create":
        return require(args, "content")
    if existing is None:  # a broken SKILL.md: only create replaces it whole
        raise ToolError("that SKILL.md cannot be parsed, so it cannot be patched; "
                        "create it anew with the full text")
    try:
        return replaced_once(existing.body, require(args, "old"), require(args, "new"))
    except SkillError as exc:
        raise ToolError(f"skill not patched: {exc.message}") from None


def _may_change(ctx: ToolContext, folder: Path, name: str, action: str) -> Authored | None:
    """The agent's own sidecar when the SKILL.md in `folder` is the agent's text (or
    there is none yet: None); for anyone else's, the user's approval or a ToolError."""
    path = folder / SKILL_FILE
    if not path.exists():
        return None
    mine = agent_written(folder)
    if mine is not None:
        return mine
    if ctx.approve is None:
        raise ToolError(f"refused: skill '{name}' was installed by the user (hermes did not "
                        "write it, or it was edited by hand since), and changing it needs the "
                        "user's approval, which no one is here to give. Suggest the change to "
                        "the user instead, or create a skill of your own under another name.")
    if not ctx.approve(f"{action} skill {name} ({path})",
                       f"skill {name} is the user's: hermes did not write it"):
        raise ToolError(f"the user declined: skill '{name}' stays as it is. Do not retry; "
                        "ask the user how to proceed.")
    return None


def _notice(action: str, name: str, existing: Skill | None) -> str:
    if action == "delete":
        return f"skill {name} deleted: it leaves the index from your next session"
    if action == "create" and existing is None:
        return (f"new skill {name}: in the index from your next session "
                "(skill_view can load it now)")
    return (f"skill {name} changed: the index shows the new description from your next "
            "session (skill_view reads the new text now)")


TOOL = Tool(
    name="skill_manage",
    toolset="skills",
    description=(
        "Create, patch or delete one of your own skills: a SKILL.md with YAML front matter "
        "(name, description), then the steps. A change reaches the skills index next "
        "session; skill_view reads it at once. Skills the user installed change only with "
        "their approval."
    ),
    parameters={
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "name": {"type": "string", "description": "Lowercase letters, digits and single "
                     "hyphens, as in its front matter."},
            "content": {"type": "string", "description": "create: the full SKILL.md."},
            "old": {"type": "string", "description": "patch: a unique part of the text."},
            "new": {"type": "string", "description": "patch: its replacement."},
        },
        "required": ["action", "name"],
    },
    run=skill_manage,
)
