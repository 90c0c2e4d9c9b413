"""`/skills NAME`: front matter as fields, not a run-on paragraph (string console)."""

from __future__ import annotations

import io

from rich.console import Console

from hermes_cli.render.skill import skill_renderables, split_front_matter
from skills.loader import parse_skill


def test_front_matter_is_a_field_table_and_the_body_follows(tmp_path):
    path = tmp_path / "demo" / "SKILL.md"
    path.parent.mkdir()
    path.write_text("---\nname: demo\ndescription: Shows [bold]x[/] things.\n"
                    "metadata:\n  tags: [a, b]\n---\n# Demo\n\nStep one.\n")
    skill = parse_skill(path, "user")
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    console.print(*skill_renderables(skill))
    lines = [line.rstrip() for line in out.getvalue().splitlines()]
    assert lines[0].split() == ["name", "demo"]
    assert lines[1].split(None, 1) == ["description", "Shows [bold]x[/] things."]
    assert lines[2].split(None, 1) == ["metadata", '{"tags": ["a", "b"]}']
    assert "---" not in out.getvalue() and "Demo" in out.getvalue() and "Step one." in lines


def test_split_front_matter():
    assert split_front_matter("---\na: 1\n---\n\nbody\n") == "body\n"
    assert split_front_matter("no front matter\n") == "no front matter\n"
