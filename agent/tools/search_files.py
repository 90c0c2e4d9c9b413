"""search_files: regex search of file contents (ripgrep when present), or files by name.

Both content backends give the same result for the same tree: one line per matching
line, `path:line: text`, files in name order (directory entries sorted by name), lines
ascending. ripgrep additionally honours `.gitignore` inside git repositories. The
backend is ripgrep when `rg` is on PATH, else pure Python; `HERMES_SEARCH_BACKEND=python`
(or `rg`) forces one.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from itertools import islice
from pathlib import Path
from typing import Any

from agent.errors import ToolError
from agent.tools._common import (
    SKIP_DIRS,
    SNIFF_BYTES,
    display,
    looks_binary,
    opt_int,
    opt_str,
    resolve,
)
from agent.tools.file_policy import guard_read, hidden
from agent.tools.registry import Tool, ToolContext, require

MAX_LIMIT = 500
MAX_TEXT = 300
MAX_FILE_BYTES = 20_000_000
RG_TIMEOUT = 60


@dataclass(frozen=True)
class Match:
    """One matching line: absolute file path, 1-based line number, line text."""

    path: Path
    line: int
    text: str


def search(
    root: Path, pattern: str, *, file_glob: str | None = None, limit: int = 50, backend: str = "auto"
) -> tuple[list[Match], bool]:
    """Matches of regex `pattern` under `root` (a folder or one file), and whether more exist."""
    if backend == "auto":
        backend = "rg" if shutil.which("rg") else "python"
    if root.is_file():
        with root.open("rb") as handle:
            if looks_binary(handle.read(SNIFF_BYTES)):
                return [], False
    if backend == "rg":
        return _search_rg(root, pattern, file_glob, limit)
    return _search_python(root, pattern, file_glob, limit)


def find_files(root: Path, pattern: str, limit: int) -> tuple[list[Path], bool]:
    """Files under `root` whose name (or relative path, if the glob has '/') matches."""
    if not any(ch in pattern for ch in "*?["):
        pattern = f"*{pattern}*"
    found = list(islice(_walk(root, pattern), limit + 1))
    return found[:limit], len(found) > limit


def _search_python(root: Path, pattern: str, file_glob: str | None, limit: int) -> tuple[list[Match], bool]:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"invalid regular expression {pattern!r}: {exc}") from exc
    found: list[Match] = []
    for path in _walk(root, file_glob):
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue  # unreadable files are skipped, as ripgrep does
        if looks_binary(data):
            continue
        # Split on "\n" only, as ripgrep counts lines (str.splitlines also splits on \f etc.).
        lines = data.decode("utf-8", errors="replace").split("\n")
        for number, line in enumerate(lines[:-1] if data.endswith(b"\n") else lines, start=1):
            line = line.removesuffix("\r")
            if regex.search(line):
                found.append(Match(path, number, line))
                if len(found) > limit:
                    return found[:limit], True
    return found, False


def _walk(root: Path, file_glob: str | None) -> Iterator[Path]:
    """Files under `root` in name order, skipping SKIP_DIRS; filtered by `file_glob`."""
    if root.is_file():
        yield root
        return
    yield from _walk_dir(root, root, _expand_braces(file_glob) if file_glob else None)


def _walk_dir(folder: Path, root: Path, globs: list[str] | None) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIP_DIRS:
                yield from _walk_dir(path, root, globs)
        elif entry.is_file(follow_symlinks=False) and (globs is None or _glob_match(root, path, globs)):
            yield path


def _glob_match(root: Path, path: Path, globs: list[str]) -> bool:
    rel = path.relative_to(root).as_posix()
    return any(fnmatchcase(rel if "/" in g else path.name, g.lstrip("/")) for g in globs)


def _expand_braces(glob: str) -> list[str]:
    """`*.{ts,tsx}` -> ['*.ts', '*.tsx'] (one level, as ripgrep globs allow)."""
    match = re.search(r"\{([^{}]*)\}", glob)
    if not match:
        return [glob]
    head, tail = glob[: match.start()], glob[match.end() :]
    return [v for part in match.group(1).split(",") for v in _expand_braces(head + part + tail)]


def _search_rg(root: Path, pattern: str, file_glob: str | None, limit: int) -> tuple[list[Match], bool]:
    cmd = ["rg", "--json", "--sort", "path", "--hidden", "--no-config", "--no-messages"]
    if file_glob:
        cmd += ["--glob", file_glob]
    for name in sorted(SKIP_DIRS):
        cmd += ["--glob", f"!{name}"]
    cmd += ["--max-filesize", str(MAX_FILE_BYTES), "-e", pattern, "--", str(root)]
    found: list[Match] = []
    more = False
    with subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None
        for raw in proc.stdout:
            match = _rg_match(raw)
            if match is None:
                continue
            if len(found) == limit:
                more = True
                proc.kill()
                break
            found.append(match)
        try:
            _, err = proc.communicate(timeout=RG_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            proc.kill()
            raise ToolError(f"search took longer than {RG_TIMEOUT}s; narrow the path or pattern") from exc
    if proc.returncode == 2 and not found:
        message = err.decode("utf-8", errors="replace").strip() or "ripgrep failed"
        raise ToolError(f"invalid search: {message}")
    return found, more


def _rg_match(raw: bytes) -> Match | None:
    event = json.loads(raw)
    if event.get("type") != "match":
        return None
    data = event["data"]
    path = os.fsdecode(_rg_bytes(data["path"]))
    text = _rg_bytes(data["lines"]).decode("utf-8", errors="replace")
    return Match(Path(path), int(data["line_number"]), text.rstrip("\r\n"))


def _rg_bytes(field: dict[str, str]) -> bytes:
    """ripgrep sends {"text": ...}, or {"bytes": base64} for data that is not UTF-8."""
    if "text" in field:
        return field["text"].encode("utf-8", errors="surrogateescape")
    return base64.b64decode(field["bytes"])


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " ..."


def search_files(args: dict[str, Any], ctx: ToolContext) -> str:
    """The tool: content search (default) or file-name search under `path`."""
    pattern = require(args, "pattern")
    target = args.get("target") or "content"
    if target not in ("content", "files"):
        raise ToolError("target must be 'content' or 'files'")
    root = resolve(ctx, opt_str(args, "path") or ".")
    limit = opt_int(args, "limit", 50, 1, MAX_LIMIT)
    guard_read(ctx, root)
    if not root.exists():
        raise ToolError(f"path not found: {display(ctx, root)}")
    where = display(ctx, root)
    if target == "files":
        paths, more = find_files(root, pattern, limit)
        lines = [display(ctx, p) for p in paths if not hidden(ctx, p)]
        noun = "files"
    else:
        backend = os.environ.get("HERMES_SEARCH_BACKEND", "auto")
        matches, more = search(root, pattern, file_glob=opt_str(args, "file_glob"), limit=limit, backend=backend)
        lines = [f"{display(ctx, m.path)}:{m.line}: {_clip(m.text)}" for m in matches
                 if not hidden(ctx, m.path)]
        noun = "matches"
    if not lines:
        return f"No {noun} for {pattern!r} in {where}."
    if more:
        lines.append(f"[showing the first {limit} {noun}; more exist - narrow the pattern or path, or raise limit]")
    return "\n".join(lines)


TOOL = Tool(
    name="search_files",
    toolset="file",
    description=(
        "Search file contents with a regular expression (target='content', the default; results "
        "'path:line: text') or find files by name glob (target='files', e.g. '*.py'). Skips .git, "
        "node_modules, virtualenvs and binary files. Use this instead of grep/find/ls in the terminal."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Regex for content search, or file-name glob for target='files'."},
            "target": {"type": "string", "enum": ["content", "files"], "default": "content"},
            "path": {"type": "string", "description": "Folder or file to search.", "default": "."},
            "file_glob": {"type": "string", "description": "Only search files matching this glob, e.g. '*.py'."},
            "limit": {"type": "integer", "description": "Maximum results.", "default": 50},
        },
        "required": ["pattern"],
    },
    run=search_files,
    read_only=True,
    untrusted=True,
)
