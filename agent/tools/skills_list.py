"""skills_list: the skills available to this session, one line each."""

from __future__ import annotations

from typing import Any

from agent.errors import ToolError
from agent.tools.registry import Tool, ToolContext
from skills.loader import SkillCatalog, one_line


def catalog(ctx: ToolContext) -> SkillCatalog:
    """The session's SkillCatalog (`ctx.services.skills`), or a ToolError."""
    found = ctx.services.skills
    if found is None:
        raise ToolError("skills are not available in this session")
    return found


def skills_list(args: dict[str, Any], ctx: ToolContext) -> str:
    """`name (source): description` per skill, plus any skipped broken skill files."""
    skills = catalog(ctx)
    lines = [f"{s.name} ({s.source}): {one_line(s.description)}" for s in skills.skills.values()]
    if not lines:
        lines = ["No skills installed."]
    else:
        lines.append("Load one with skill_view(name).")
    if skills.warnings:
        lines.append(f"{len(skills.warnings)} broken skill file(s) were skipped:")
        lines += [f"  {w}" for w in skills.warnings]
    return "\n".join(lines)


TOOL = Tool(
    name="skills_list",
    toolset="skills",
    description="List available skills (name, source, description). Load one with skill_view(name).",
    parameters={"type": "object", "properties": {}},
    run=skills_list,
    read_only=True,
)
