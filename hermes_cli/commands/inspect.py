"""`hermes prompt show` and `hermes skills list|show`: see what every call pays for."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

from agent.prompts.prefix import decode, split
from agent.tokens import estimate_tokens

# Function-level imports below: `hermes inspect` loads the prompt builder, the tool
# registry and rich tables only when it runs (start-up speed of every other command).

_PROBE_NAME = "\x00probe\x00"
_SKILL_HEADER = re.compile(r"^# Skill: (.+) \(preloaded\)$")


@cache
def stable_headers() -> tuple[tuple[str, str, str], ...]:
    """(title, prefix, suffix) of each section header `build_stable` emits, in order.

    Derived by building a probe prompt with every section present, so the headers
    always match the builder's (nothing is copied from agent/prompts/prompt.py by hand)."""
    from agent.prompts.prompt import ContextFile, EnvFacts, PromptInputs, build_stable

    probe = build_stable(PromptInputs(
        env=EnvFacts("s", "i", "m", "p", "c", "o"), personality="x", guidance=(("t", "x"),),
        memory=("x",), user=("x",), context_file=ContextFile(_PROBE_NAME, "x"),
        skills_index=("x",)))
    headers = []
    for _name, body in probe.sections[1:]:  # the first section (identity) has no header
        line = body.split("\n", 1)[0]
        prefix, _, suffix = line.partition(_PROBE_NAME)  # only the context file has a name
        title = line[2:].split(" (")[0].strip().lower()
        headers.append((title, prefix, suffix if _PROBE_NAME in line else ""))
    return tuple(headers)


def _header_at(line: str, after: int) -> int | None:
    """The index of the builder header `line` is, looking only past header `after`."""
    for index, (_title, prefix, suffix) in enumerate(stable_headers()):
        if index <= after:
            continue
        exact = not suffix and line == prefix
        named = bool(suffix) and line.startswith(prefix) and line.endswith(suffix) and len(line) > len(prefix + suffix)
        if exact or named:
            return index
    return None


def split_sections(text: str) -> list[tuple[str, str]]:
    """Split a stable prompt into its sections (the first one is identity).

    Only the headers `build_stable` emits split it, each in the builder's order and
    after a blank line (how the builder joins sections): a HERMES.md or SOUL.md with
    its own '# ' headings stays inside its section."""
    headers = stable_headers()
    sections: list[tuple[str, str]] = []
    title, current = "identity", -1
    lines: list[str] = []
    for line in text.split("\n"):
        found = _header_at(line, current) if lines and lines[-1] == "" else None
        if found is None:
            lines.append(line)
            continue
        sections.append((title, "\n".join(lines).rstrip("\n")))
        title, lines, current = headers[found][0], [line], found
    sections.append((title, "\n".join(lines).rstrip("\n")))
    return sections


def _ephemeral_label(ephemeral: str) -> str:
    names = [m.group(1) for line in ephemeral.split("\n") if (m := _SKILL_HEADER.match(line))]
    return f"preloaded skills ({', '.join(names)}) / instructions" if names else "instructions"


def _session_tools_tokens(names: list[str]) -> tuple[int, list[str]]:
    """Estimated tokens of the stored session's tool schemas (and names not found)."""
    from agent.agent import build_registry

    schemas = {schema.name: schema for schema in build_registry(None).schemas()}
    picked = [schemas[name] for name in sorted(names) if name in schemas]
    missing = [name for name in names if name not in schemas]
    return estimate_tokens("".join(schema.canonical() for schema in picked)), missing


_SHARED_BY = {"installation": "all sessions of this installation",
              "project": "this user + project", "session": "this session only"}


def _sharing_table(blocks: tuple[tuple[str, str], ...], tools_tokens: int):
    """Who shares each system block in the provider's cache (agent.prompts.prefix): a block
    one session wrote is read by every other session that shares it, within the TTL."""
    from rich.table import Table

    table = Table("cache block", "shared by", "~tokens", box=None,
                  title="Prefix sharing (most shared first)", title_justify="left")
    table.add_row("tools", _SHARED_BY["installation"], f"{tools_tokens:,}")
    legacy = len(blocks) == 1
    for scope, text in blocks:
        who = _SHARED_BY[scope] + (" (stored as one block before prefix sharing)"
                                   if legacy else "")
        table.add_row(f"system: {scope}", who, f"{estimate_tokens(text):,}")
    return table


def prompt_show(session: str | None, full: bool, skills: tuple[str, ...] = ()) -> None:
    """Print the tool schemas, stable and ephemeral layers with token estimates."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from agent.errors import ConfigError
    from frontend.factory import build_agent
    from frontend.setup import Flags

    console = Console(highlight=False)
    if session and skills:
        raise ConfigError("--skills previews a new session; a stored session keeps its own",
                          "drop --skills, or drop --session to preview a new session with them")
    if session:
        from frontend.config.settings import load_settings
        from frontend.setup import open_store

        store = open_store(load_settings())
        row = store.get_session(store.resolve_session_id(session))
        stable, ephemeral, label = row["system_prompt"], row.get("ephemeral_prompt") or "", row["id"]
        blocks = split(stable, decode(row.get("stable_layout")))
        tools_tokens, missing = _session_tools_tokens(list(row.get("tools") or []))
        if missing:
            sys.stderr.write(f"hermes: warning: tool(s) no longer available, not counted: "
                             f"{', '.join(missing)}\n")
    else:
        agent = build_agent(Flags(skills=skills), resume=None, cont=False, preview=True)
        for notice in agent.startup_notices:
            sys.stderr.write(f"hermes: {notice.level}: {notice.text}\n")
        stable, ephemeral, label = agent.stable, agent.ephemeral, "a new session (not saved)"
        blocks = agent.session.blocks
        tools_tokens = estimate_tokens("".join(t.canonical() for t in agent.registry.schemas()))
    table = Table("layer", "section", "~tokens", box=None)
    table.add_row("tools", "tool schemas", f"{tools_tokens:,}")
    for title, body in split_sections(stable):
        table.add_row("stable", Text(title), f"{estimate_tokens(body):,}")
    if ephemeral:
        table.add_row("ephemeral", Text(_ephemeral_label(ephemeral)),
                      f"{estimate_tokens(ephemeral):,}")
    total = estimate_tokens(stable) + estimate_tokens(ephemeral) + tools_tokens
    table.add_row("", "[bold]total re-sent on every call[/bold]", f"[bold]{total:,}[/bold]")
    console.print(Text(f"System prompt of {label}"))
    console.print(table)
    console.print(_sharing_table(blocks, tools_tokens))
    if full:
        sys.stdout.write("\n" + stable + "\n")
        if ephemeral:
            sys.stdout.write("\n--- ephemeral layer ---\n" + ephemeral + "\n")


def skills_list() -> None:
    """All skills with their source; broken ones as warnings."""
    from frontend.config.settings import hermes_home
    from skills.authored import mark
    from skills.loader import discover

    catalog = discover(hermes_home())
    for warning in catalog.warnings:
        sys.stderr.write(f"hermes: warning: {warning}\n")
    if not catalog.skills:
        sys.stdout.write("No skills found.\n")
    for skill in catalog.skills.values():
        sys.stdout.write(f"{skill.name} ({skill.source}): {skill.description.splitlines()[0]}"
                         f"{mark(skill.root) if skill.source == 'user' else ''}\n")


def skills_show(name: str) -> None:
    """Print one skill's SKILL.md (and list its extra files)."""
    from agent.errors import ConfigError
    from frontend.config.settings import hermes_home
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
