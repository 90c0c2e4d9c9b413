"""`hermes prompt show` and `hermes skills list|show`: see what every call pays for."""

from __future__ import annotations

import sys
from pathlib import Path

from agent.prompt import estimate_tokens


def split_sections(text: str) -> list[tuple[str, str]]:
    """Split a stable prompt on its top-level '# ' headings (the first part is identity)."""
    sections: list[tuple[str, str]] = []
    title, lines = "identity", []
    for line in text.split("\n"):
        if line.startswith("# ") and lines:
            sections.append((title, "\n".join(lines)))
            title, lines = line[2:].split(" (")[0].strip().lower(), [line]
        else:
            if line.startswith("# ") and not lines:
                title = line[2:].split(" (")[0].strip().lower()
            lines.append(line)
    sections.append((title, "\n".join(lines)))
    return sections


def prompt_show(session: str | None, full: bool) -> None:
    """Print the stable and ephemeral layers with token estimates per section."""
    from rich.console import Console
    from rich.table import Table

    from hermes_cli.oneshot import build_agent
    from hermes_cli.setup import Flags

    console = Console(highlight=False)
    if session:
        from hermes_cli.config import load_settings
        from hermes_cli.setup import open_store

        store = open_store(load_settings())
        row = store.get_session(store.resolve_session_id(session))
        stable, ephemeral, tools_tokens, label = row["system_prompt"], row.get("ephemeral_prompt") or "", None, row["id"]
    else:
        agent = build_agent(Flags(), resume=None, cont=False, preview=True)
        for notice in agent.startup_notices:
            sys.stderr.write(f"hermes: {notice.level}: {notice.text}\n")
        stable, ephemeral, label = agent.stable, agent.ephemeral, "a new session (not saved)"
        tools_tokens = estimate_tokens("".join(t.canonical() for t in agent.registry.schemas()))
    table = Table("layer", "section", "~tokens", box=None)
    if tools_tokens is not None:
        table.add_row("tools", "tool schemas", f"{tools_tokens:,}")
    for title, body in split_sections(stable):
        table.add_row("stable", title, f"{estimate_tokens(body):,}")
    if ephemeral:
        table.add_row("ephemeral", "preloaded skills / instructions", f"{estimate_tokens(ephemeral):,}")
    total = estimate_tokens(stable) + estimate_tokens(ephemeral) + (tools_tokens or 0)
    table.add_row("", "[bold]total re-sent on every call[/bold]", f"[bold]{total:,}[/bold]")
    console.print(f"System prompt of {label}")
    console.print(table)
    if full:
        sys.stdout.write("\n" + stable + "\n")
        if ephemeral:
            sys.stdout.write("\n--- ephemeral layer ---\n" + ephemeral + "\n")


def skills_list() -> None:
    """All skills with their source; broken ones as warnings."""
    from hermes_cli.config import hermes_home
    from skills.loader import discover

    catalog = discover(hermes_home())
    for warning in catalog.warnings:
        sys.stderr.write(f"hermes: warning: {warning}\n")
    if not catalog.skills:
        sys.stdout.write("No skills found.\n")
    for skill in catalog.skills.values():
        sys.stdout.write(f"{skill.name} ({skill.source}): {skill.description.splitlines()[0]}\n")


def skills_show(name: str) -> None:
    """Print one skill's SKILL.md (and list its extra files)."""
    from agent.errors import ConfigError
    from hermes_cli.config import hermes_home
    from skills.loader import discover

    catalog = discover(hermes_home())
    skill = catalog.get(name)
    if skill is None and catalog.problem(name):
        raise ConfigError(f"skill '{name}' is broken: {catalog.problem(name)}",
                          "fix that SKILL.md; `hermes skills list` shows every problem")
    if skill is None:
        hint = ", ".join(catalog.close_names(name))
        raise ConfigError(f"unknown skill '{name}'",
                          f"did you mean: {hint}" if hint else "see `hermes skills list`")
    sys.stdout.write(skill.body.rstrip("\n") + "\n")
    files = skill.files()
    if files:
        sys.stdout.write(f"\nFiles: {', '.join(files)} (in {Path(skill.path).parent})\n")
