"""skills_list and skill_view over a real SkillCatalog."""

from __future__ import annotations

from dataclasses import replace

import pytest

from skills.loader import discover


@pytest.fixture
def catalog(ctx):
    root = ctx.home / "skills" / "deploy"
    (root / "scripts").mkdir(parents=True)
    (root / "SKILL.md").write_text("---\nname: deploy\ndescription: Ship it\n  safely.\n---\n# Deploy\nSteps.\n")
    (root / "scripts" / "check.sh").write_text("echo ok\n")
    (ctx.home / "skills" / "bad").mkdir()
    (ctx.home / "skills" / "bad" / "SKILL.md").write_text("no frontmatter")
    ctx.services = replace(ctx.services, skills=discover(ctx.home))
    return ctx.services.skills


def test_skills_list(call, catalog):
    result = call("skills_list")
    assert result.ok
    lines = result.content.splitlines()
    assert "deploy (user): Ship it safely." in lines
    assert "git-commit (bundled): " in result.content
    assert "1 broken skill file(s) were skipped:" in lines
    assert "bad/SKILL.md" in result.content


def test_skill_view_body_and_files(call, catalog):
    result = call("skill_view", name="deploy")
    assert result.content.startswith("---\nname: deploy")
    assert result.content.endswith("file_path=...)]\n- scripts/check.sh")
    assert call("skill_view", name="deploy", file_path="scripts/check.sh").content == "echo ok\n"
    bundled = call("skill_view", name="debugging")
    assert bundled.ok and bundled.content == catalog.get("debugging").body


def test_skill_view_errors(call, catalog):
    unknown = call("skill_view", name="deploi")
    assert not unknown.ok and "Did you mean: deploy" in unknown.content
    escape = call("skill_view", name="deploy", file_path="../../../etc/passwd")
    assert not escape.ok and "leaves the skill folder" in escape.content
    missing = call("skill_view", name="deploy", file_path="nope.md")
    assert not missing.ok and "scripts/check.sh" in missing.content


def test_without_skills_service(call):
    assert "not available" in call("skills_list").content
