"""What a tool did, under its `⚙` line: a command's output tail, a file read's line count
and first lines, a coloured diff of a write or patch. Collapsed to a few lines; `/expand`
shows the last tool's outcome in full. All text is shown as written (never markup).
"""

from __future__ import annotations

import re

from rich.console import Group
from rich.text import Text

from agent.events import ToolFinished
from agent.mcp.schema import PREFIX as MCP_PREFIX

PREVIEW_LINES = 4  # output tail of a command, first lines of a file read
DIFF_LINES = 8
LINE_CHARS = 160
EXPAND_HINT = "/expand shows it all"
_EXIT = re.compile(r"\n?\[exit code (-?\d+)\]\s*$")
_NUMBERED = re.compile(r"^\s*\d+\|")
_READ_FOOTER = re.compile(r"^\[(?:lines|output capped)")


def outcome(event: ToolFinished, full: bool = False) -> Text | Group | None:
    """The preview (or with `full`, the whole) of what a finished tool did; None when
    there is nothing worth a line (a failure says why on the tool line itself)."""
    if not event.ok:
        return None
    if event.diff:
        return diff_text(event.diff, None if full else DIFF_LINES)
    if not event.content.strip():
        return None
    if event.name == "terminal":
        return _command(event.content, full)
    if event.name == "read_file":
        return _file_read(event.content, full)
    if event.name.startswith(MCP_PREFIX):  # a server's answer: its first lines
        return _head(event.content, full)
    if full:
        return _indented(event.content.splitlines())
    return None


def has_more(event: ToolFinished) -> bool:
    """The preview leaves something out."""
    if event.diff:
        return len(event.diff.splitlines()) > DIFF_LINES
    if event.name in ("terminal", "read_file") or event.name.startswith(MCP_PREFIX):
        return len(event.content.splitlines()) > PREVIEW_LINES + 1
    return bool(event.content.strip()) and "\n" in event.content.strip()


def diff_text(diff: str, limit: int | None) -> Text:
    """A unified diff, coloured: additions green, removals red, hunks cyan."""
    lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
    shown = lines if limit is None else lines[:limit]
    out = Text()
    header = _diff_file(diff)
    if header:
        out.append(f"  {header}\n", style="bold")
    for line in shown:
        style = ("green" if line.startswith("+") else "red" if line.startswith("-")
                 else "cyan" if line.startswith("@@") else "dim")
        out.append("  " + _cut(line) + "\n", style=style)
    if len(shown) < len(lines):
        out.append(f"  … {len(lines) - len(shown)} more diff lines ({EXPAND_HINT})\n", style="dim")
    out.rstrip()
    return out


def _diff_file(diff: str) -> str:
    """The file a unified diff changes, from its `+++ b/path` line (`--- a/path` for a
    deletion), or ""."""
    found = {line[:3]: line[4:].split("\t")[0] for line in diff.splitlines()[:4]
             if line.startswith(("--- ", "+++ "))}
    name = found.get("+++", "")
    if name in ("", "/dev/null"):
        name = found.get("---", "")
    name = "" if name == "/dev/null" else name
    return name[2:] if name.startswith(("a/", "b/")) else name


def _command(content: str, full: bool) -> Text:
    match = _EXIT.search(content)
    body = content[:match.start()] if match else content
    lines = body.rstrip("\n").splitlines()
    shown = lines if full else lines[-PREVIEW_LINES:]
    out = Text()
    if len(shown) < len(lines):
        out.append(f"  … {len(lines) - len(shown)} earlier lines ({EXPAND_HINT})\n", style="dim")
    out.append_text(_indented(shown))
    if match and match.group(1) != "0":
        out.append(f"\n  exit code {match.group(1)}", style="red")
    return out


def _head(content: str, full: bool) -> Text:
    lines = content.strip("\n").splitlines()
    shown = lines if full else lines[:PREVIEW_LINES]
    out = _indented(shown)
    if len(shown) < len(lines):
        out.append(f"\n  … {len(lines) - len(shown)} more lines ({EXPAND_HINT})", style="dim")
    return out


def _file_read(content: str, full: bool) -> Text:
    lines = content.splitlines()
    footer = lines[-1] if lines and _READ_FOOTER.match(lines[-1]) else ""
    numbered = [line for line in lines if _NUMBERED.match(line)]
    if not numbered:  # "x is empty (0 lines)." and such
        return _indented(lines[:1])
    out = Text(f"  {len(numbered)} lines read" + (f" {footer}" if footer else ""), style="dim")
    shown = numbered if full else numbered[:PREVIEW_LINES - 1]
    out.append("\n")
    out.append_text(_indented(shown))
    if len(shown) < len(numbered):
        out.append(f"\n  … ({EXPAND_HINT})", style="dim")
    return out


def _indented(lines: list[str]) -> Text:
    return Text("\n".join("  " + _cut(line) for line in lines), style="dim")


def _cut(line: str) -> str:
    line = line.expandtabs(4)
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 1] + "…"
