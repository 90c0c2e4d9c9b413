"""`/skills NAME`: a skill's front matter as a small field table, then its markdown body."""

from __future__ import annotations

import json
from typing import Any

from rich.table import Table
from rich.text import Text


def split_front_matter(text: str) -> str:
    """The SKILL.md text after its `---` front matter block (all of it when there is none)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return text
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "".join(lines[index + 1:]).lstrip("\n")
    return text


def field_table(metadata: dict[str, Any]) -> Table:
    """One row per front matter key; nested values as compact JSON. All cells are Text:
    nothing a skill file says is read as markup."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="dim", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in metadata.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                                 default=str)
        table.add_row(Text(str(key)), Text(" ".join(str(shown).split())))
    return table


def skill_renderables(skill) -> list[Any]:
    """The field table and the body, for the REPL to print."""
    from hermes_cli.render.stream import markdown

    return [field_table(skill.metadata), Text(""), markdown(split_front_matter(skill.body))]
