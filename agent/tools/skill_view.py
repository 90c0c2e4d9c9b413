"""skill_view: the full SKILL.md of a skill, or one of its extra files, as they are on
disk now (a skill written this session reads at once; agent/tools/skills_list.py). One
the agent wrote in an earlier session loads only once the user approved it
(skills/authored.py)."""

from __future__ import annotations

from typing import Any

from agent.errors import ToolError
from agent.tools._common import opt_str
from agent.tools.registry import Tool, ToolContext, require
from agent.tools.skills_list import live
from skills.authored import pending, read_sidecar
from skills.loader import SkillError


def skill_view(args: dict[str, Any], ctx: ToolContext) -> str:
    """SKILL.md text plus a list of the skill's files; or the text of `file_path`."""
    skills = live(ctx)
    name = require(args, "name").strip()
    skill = skills.get(name)
    if skill is None and skills.problem(name):
        raise ToolError(f"skill '{name}' cannot be loaded: {skills.problem(name)}")
    if skill is None:
        close = skills.close_names(name)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        available = ", ".join(skills.names()) or "none"
        raise ToolError(f"unknown skill '{name}'.{hint} Available skills: {available}")
    held = pending(skill.root) if skill.source == "user" else None
    written = read_sidecar(skill.root) if held else None
    indexed = ctx.services.skills is not None and ctx.services.skills.get(name) is not None
    if held and written is not None and written.session != ctx.session_id and not indexed:
        raise ToolError(f"skill '{name}' was written by hermes in an earlier session and the "
                        f"user has {'declined' if held == 'declined' else 'not yet approved'} it: "
                        "it is not loaded (the REPL asks at start). Work without it.")
    rel = opt_str(args, "file_path") or opt_str(args, "file")
    if rel is not None:
        try:
            return skill.read_file(rel)
        except SkillError as exc:
            raise ToolError(exc.message) from exc
    files = skill.files()
    if not files:
        return skill.body
    listing = "\n".join(f"- {f}" for f in files)
    return (
        f"{skill.body.rstrip()}\n\n[files of skill '{skill.name}' - read one with "
        f"skill_view(name='{skill.name}', file_path=...)]\n{listing}"
    )


TOOL = Tool(
    name="skill_view",
    toolset="skills",
    description=(
        "Load a skill's instructions (SKILL.md) and the list of its extra files; file_path "
        "reads one of those instead."
    ),
    parameters={
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "file_path": {"type": "string"},
        },
        "required": ["name"],
    },
    run=skill_view,
    read_only=True,
    untrusted=True,  # a skill's text may come from anywhere (a hub, a project, the agent)
)
