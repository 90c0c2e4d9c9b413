"""Read-only slash commands (/skills /tools /memory /prompt) and completion choices."""

from __future__ import annotations

from collections.abc import Callable

from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import one_word, short

# Function-level imports below: each slash command loads what it shows (the catalogue,
# rich tables, settings) when it runs, not when the REPL starts (start-up speed: the
# prompt draws first).

HEADING = "\n\n# "


def model_choices(agent) -> list[tuple[str, str]]:
    """The current model first, then the catalogue's models of the session's provider,
    then the others (for /model completion and listing)."""
    from agent.providers import models

    choices = [(agent.model, "current")]
    ordered = sorted(models.CATALOGUE.values(), key=lambda i: i.provider != agent.provider_name)
    for info in ordered:
        if info.id != agent.model:
            choices.append((info.id, f"{info.provider}, {info.context_window:,} ctx"))
    return choices


def personality_choices() -> dict[str, str]:
    """Built-in personalities plus config.yaml `personalities:`."""
    from frontend.config.settings import load_settings
    from frontend.personalities import available

    return available(load_settings().get("personalities", {}, kind=dict))


def prompt_sections(text: str) -> list[tuple[str, int]]:
    """(heading, estimated tokens) per "# " section of a prompt layer."""
    from agent.tokens import estimate_tokens

    if not text:
        return []
    chunks = text.split(HEADING)
    out = []
    for index, chunk in enumerate(chunks):
        body = chunk if index == 0 else "# " + chunk
        first = body.strip().splitlines()[0] if body.strip() else ""
        title = first.lstrip("# ").strip() if first.startswith("#") else "identity"
        out.append((short(title, 60), estimate_tokens(body)))
    return out


# -- handlers --------------------------------------------------------------------------


def cmd_skills(repl: Repl, arg: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from skills.authored import skill_note

    catalogue = repl.agent.sessions.find_skills()  # on disk now: skills written this session too
    name = one_word(arg)
    if name:
        skill = catalogue.get(name)
        if skill is None:
            close = catalogue.close_names(name)
            hint = f"did you mean {', '.join(close)}?" if close else "/skills lists them"
            repl.renderer.error(f"unknown skill '{name}'", hint)
            return
        from hermes_cli.render.skill import skill_renderables

        repl.renderer.print(Text(f"{skill.name} ({skill.source}) - {skill.path}", style="bold"))
        repl.renderer.print(*skill_renderables(skill))
        return
    if not catalogue.skills:
        repl.renderer.info("no skills installed")
        return
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(no_wrap=True)
    table.add_column()
    table.add_column()  # who wrote it and when; whether the index shows it yet
    for skill in catalogue.skills.values():
        table.add_row(Text(skill.name), Text(short(skill.description, 90)),
                      Text(skill_note(skill, repl.agent.skills), style="dim"))
    repl.renderer.print(table)
    repl.renderer.print(f"{len(catalogue)} skills · /skills NAME shows one", style="dim")


def cmd_tools(repl: Repl, arg: str) -> None:
    from rich.table import Table
    from rich.text import Text

    registry = repl.agent.registry
    table = Table(box=None, pad_edge=False)
    table.add_column("toolset", no_wrap=True)
    table.add_column("tool", no_wrap=True)
    table.add_column("description")
    for tool in sorted(registry.tools(), key=lambda t: (t.toolset, t.name)):
        if tool.toolset == "mcp":
            continue  # by server, below
        name = tool.name
        table.add_row(Text(tool.toolset), Text(name), Text(short(tool.description, 80)))
    repl.renderer.print(table)
    from hermes_cli.slash.mcp import mcp_tool_rows  # MCP tools by server, with their size

    rows = mcp_tool_rows(registry)
    if rows:
        mcp = Table(box=None, pad_edge=False)
        for column in ("MCP server", "tool", "schema tokens"):
            mcp.add_column(column, no_wrap=True)
        for server, name, tokens in rows:
            mcp.add_row(Text(server), Text(name), f"{tokens:,}")
        mcp.add_row("", Text("total", style="bold"), f"{sum(r[2] for r in rows):,}")
        repl.renderer.print(mcp)
    repl.renderer.print("the tool set is fixed for the session (changing it breaks the cache)",
                        style="dim")


def cmd_memory(repl: Repl, arg: str) -> None:
    from rich.text import Text

    notes = repl.agent.sessions.notes
    for target in ("memory", "user"):
        entries = notes.entries(target)
        repl.renderer.print(Text(f"{notes.path(target)} ({len(entries)} entr{'y' if len(entries) == 1 else 'ies'})", style="bold"))
        for entry in entries:
            repl.renderer.print(f"  - {entry}")
        if not entries:
            repl.renderer.print("  (empty)", style="dim")
    repl.renderer.print("This session's prompt keeps the snapshot taken at its start: changes "
                        "reach the prompt next session (or after /compress).", style="dim")


def cmd_prompt(repl: Repl, arg: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from agent.tokens import estimate_tokens
    from frontend.usage_report import window_for

    agent = repl.agent
    table = Table(box=None, pad_edge=False)
    table.add_column("layer", no_wrap=True)
    table.add_column("section")
    table.add_column("~tokens", justify="right")
    tools = estimate_tokens("".join(s.canonical() for s in agent.registry.schemas()))
    table.add_row("tools", f"{len(agent.registry.names())} schemas", f"{tools:,}")
    stable = prompt_sections(agent.stable)
    for title, tokens in stable:
        table.add_row("stable", Text(title), f"{tokens:,}")
    ephemeral = prompt_sections(agent.ephemeral)
    for title, tokens in ephemeral:
        table.add_row("ephemeral", Text(title), f"{tokens:,}")
    total = tools + estimate_tokens(agent.stable) + estimate_tokens(agent.ephemeral)
    table.add_row("", Text("cached prefix (tools + system)", style="bold"), f"{total:,}")
    messages = agent.session.conversation.messages
    history = agent.caller.history_tokens()
    table.add_row("conversation", f"{len(messages)} messages (images included)", f"{history:,}")
    model = agent.session.model
    window = window_for(model, agent.config.context_windows.get(model))
    used = total + history
    filled = f"{used:,} of {window:,} ({used / window:.0%})" if window else f"{used:,} (window unknown)"
    table.add_row("", Text("context window", style="bold"), filled)
    repl.renderer.print(table)
    repl.renderer.print("estimates at ~4 characters per token; the stable layer is frozen for "
                        "the session; /usage shows what the provider counted", style="dim")


def cmd_config(repl: Repl, arg: str) -> None:
    from rich.table import Table
    from rich.text import Text

    from frontend.config_view import in_force

    if repl.settings is None:
        repl.renderer.error("the settings are not read yet")
        return
    session = repl.agent.session
    table = Table(box=None, pad_edge=False)
    table.add_column("setting", no_wrap=True)
    table.add_column("value")
    table.add_column("from")
    for row in in_force(repl.settings, repl.flags, session.model, session.provider):
        table.add_row(row.key, Text(row.value), Text(row.source, style="dim"))
    repl.renderer.print(table)
    repl.renderer.print("permission rules and hooks (yours and a trusted project's): "
                        "/permissions", style="dim")


HANDLERS: dict[str, Callable[[Repl, str], None]] = {
    "config": cmd_config,
    "skills": cmd_skills,
    "tools": cmd_tools,
    "memory": cmd_memory,
    "prompt": cmd_prompt,
}
