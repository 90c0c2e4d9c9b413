"""skills_list: the skills available to this session, one line each.

The session's catalog (`ctx.services.skills`) is what its frozen skills index was built
from; `live(ctx)` is the skills on disk now (skills written during the session
included), which skills_list and skill_view read, so a skill the agent just wrote can be
loaded at once while the index waits for the next session.
"""

from __future__ import annotations

from typing import Any

from agent.errors import ToolError
from agent.tools.registry import Tool, ToolContext
from memory.threats import scan
from skills.loader import Skill, SkillCatalog, discover, one_line

NOT_INDEXED = "not in the skills index until your next session"


def catalog(ctx: ToolContext) -> SkillCatalog:
    """The session's SkillCatalog (`ctx.services.skills`), or a ToolError."""
    found = ctx.services.skills
    if found is None:
        raise ToolError("skills are not available in this session")
    return found


def live(ctx: ToolContext) -> SkillCatalog:
    """The session's skills as they are on disk now (same sources, same scanner)."""
    catalog(ctx)
    shelf = ctx.services.skill_shelf
    tenant = shelf.root if shelf is not None and shelf.source == "tenant" else None
    return discover(ctx.home, scan=scan, tenant=tenant)


def unindexed(skill: Skill, frozen: SkillCatalog) -> bool:
    """Whether the session's index does not show `skill` as it is now."""
    known = frozen.get(skill.name)
    return known is None or known.body != skill.body


def skills_list(args: dict[str, Any], ctx: ToolContext) -> str:
    """`name (source): description` per skill, plus any skipped broken skill files."""
    frozen, skills = catalog(ctx), live(ctx)
    lines = [f"{s.name} ({s.source}): {one_line(s.description)}"
             + (f" [new or changed: {NOT_INDEXED}]" if unindexed(s, frozen) else "")
             for s in skills.skills.values()]
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
    description="List the skills available now (name, source, description).",
    parameters={"type": "object", "properties": {}},
    run=skills_list,
    read_only=True,
)
