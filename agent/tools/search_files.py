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
import stat
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

import safefs
from agent.errors import ToolError
from agent.sandbox.file_policy import guard_read, unreadable
from agent.tools._common import (
    SKIP_DIRS,
    SNIFF_BYTES,
    display,
    looks_binary,
    opt_int,
    opt_str,
    resolve,
)
from agent.tools.file_open import locate
from agent.tools.registry import Tool, ToolContext, require
from safefs.files import opened_root as safefs_root

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


Where = tuple[str, str]  # (root, path relative to it): see agent/tools/file_open.py


def search(
    path: Path, pattern: str, *, file_glob: str | None = None, limit: int = 50,
    backend: str = "auto", where: Where | None = None,
) -> tuple[list[Match], bool]:
    """Matches of regex `pattern` under `path` (a folder or one file), and whether more
    exist. `where` locates `path` beneath a root (default: `path` is its own root); no
    link leaving that root is followed, and FIFOs, devices and sockets are skipped."""
    if backend == "auto":
        backend = "rg" if shutil.which("rg") else "python"
    root, rel = where or (str(path), ".")
    with opened(root, rel) as (fd, is_file):
        if is_file:
            head = os.pread(fd, SNIFF_BYTES, 0)
            if looks_binary(head):
                return [], False
        if backend == "rg":
            return _search_rg(fd, path, pattern, file_glob, limit, is_dir=not is_file)
    return _search_python(path, root, rel, pattern, file_glob, limit)


@contextmanager
def opened(root: str, rel: str) -> Iterator[tuple[int, bool]]:
    """A descriptor of the search target beneath `root`, and whether it is a file
    (NotRegular for a FIFO, device or socket: they are never read)."""
    with safefs_root(root) as top:
        fd = safefs.open_beneath(top, rel, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    try:
        mode = os.fstat(fd).st_mode
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            raise safefs.NotRegular(22, "not a regular file or directory", rel)
        yield fd, stat.S_ISREG(mode)
    finally:
        os.close(fd)


def find_files(path: Path, pattern: str, limit: int, where: Where | None = None) -> tuple[list[Path], bool]:
    """Files under `path` whose name (or relative path, if the glob has '/') matches."""
    if not any(ch in pattern for ch in "*?["):
        pattern = f"*{pattern}*"
    found = list(islice((e[0] for e in _walk(path, where or (str(path), "."), pattern)), limit + 1))
    return found[:limit], len(found) > limit


def _search_python(path: Path, root: str, rel: str, pattern: str, file_glob: str | None,
                   limit: int) -> tuple[list[Match], bool]:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"invalid regular expression {pattern!r}: {exc}") from exc
    found: list[Match] = []
    for file, read in _walk(path, (root, rel), file_glob):
        data = read()
        if data is None or looks_binary(data):
            continue  # gone, not regular, too large or unreadable: skipped, as ripgrep does
        # Split on "\n" only, as ripgrep counts lines (str.splitlines also splits on \f etc.).
        lines = data.decode("utf-8", errors="replace").split("\n")
        for number, line in enumerate(lines[:-1] if data.endswith(b"\n") else lines, start=1):
            line = line.removesuffix("\r")
            if regex.search(line):
                found.append(Match(file, number, line))
                if len(found) > limit:
                    return found[:limit], True
    return found, False


def _walk(path: Path, where: Where, file_glob: str | None) -> Iterator[tuple[Path, Callable[[], bytes | None]]]:
    """(path, reader) of each regular file under `path` in name order, skipping SKIP_DIRS,
    filtered by `file_glob`; directories are listed through descriptors, never a link."""
    root, rel = where
    with opened(root, rel) as (fd, is_file):
        if is_file:
            data = _read_fd(fd)
            yield path, lambda: data
            return
    globs = _expand_braces(file_glob) if file_glob else None
    for entry in safefs.walk(root, rel, SKIP_DIRS):
        if globs is None or _glob_match(entry.rel, globs):
            yield path / entry.rel, partial(entry.read, MAX_FILE_BYTES)


def _read_fd(fd: int) -> bytes | None:
    if os.fstat(fd).st_size > MAX_FILE_BYTES:
        return None
    os.set_blocking(fd, True)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _glob_match(rel: str, globs: list[str]) -> bool:
    name = rel.rpartition("/")[2]
    return any(fnmatchcase(rel if "/" in g else name, g.lstrip("/")) for g in globs)


def _expand_braces(glob: str) -> list[str]:
    """`*.{ts,tsx}` -> ['*.ts', '*.tsx'] (one level, as ripgrep globs allow)."""
    match = re.search(r"\{([^{}]*)\}", glob)
    if not match:
        return [glob]
    head, tail = glob[: match.start()], glob[match.end() :]
    return [v for part in match.group(1).split(",") for v in _expand_braces(head + part + tail)]


def _search_rg(fd: int, path: Path, pattern: str, file_glob: str | None,  # noqa: PLR0913
               limit: int, *, is_dir: bool = False) -> tuple[list[Match], bool]:
    """ripgrep on the descriptor we opened: a directory is rg's working directory
    (`/proc/self/fd/N` in the child, so parents' .gitignore still count), a file its
    target. Either way a directory swapped for a link after we opened it is not what rg
    reads, and rg follows no link inside (no -L). The deadline holds while its output
    is read, not only after."""
    here = f"/proc/self/fd/{fd}"
    target = "." if is_dir else here
    cmd = ["rg", "--json", "--sort", "path", "--hidden", "--no-config", "--no-messages"]
    if file_glob:
        cmd += ["--glob", file_glob]
    for name in sorted(SKIP_DIRS):
        cmd += ["--glob", f"!{name}"]
    cmd += ["--max-filesize", str(MAX_FILE_BYTES), "-e", pattern, "--", target]
    found: list[Match] = []
    more = False
    with subprocess.Popen(
        cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        pass_fds=(fd,), cwd=here if is_dir else None,
    ) as proc:
        assert proc.stdout is not None
        timer = threading.Timer(RG_TIMEOUT, proc.kill)
        timer.start()
        try:
            for raw in proc.stdout:
                match = _rg_match(raw, target, path)
                if match is None:
                    continue
                if len(found) == limit:
                    more = True
                    proc.kill()
                    break
                found.append(match)
            _, err = proc.communicate()
        finally:
            timed_out = not timer.is_alive() and not more and proc.returncode not in (0, 1, 2)
            timer.cancel()
    if timed_out:
        raise ToolError(f"search took longer than {RG_TIMEOUT}s; narrow the path or pattern")
    if proc.returncode == 2 and not found:
        message = err.decode("utf-8", errors="replace").strip() or "ripgrep failed"
        raise ToolError(f"invalid search: {message.replace(target, str(path))}")
    return found, more


def _rg_match(raw: bytes, target: str, path: Path) -> Match | None:
    event = json.loads(raw)
    if event.get("type") != "match":
        return None
    data = event["data"]
    name = os.fsdecode(_rg_bytes(data["path"]))
    inner = name[len(target):].lstrip("/") if name.startswith(target) else name.removeprefix("./")
    text = _rg_bytes(data["lines"]).decode("utf-8", errors="replace")
    return Match(path / inner if inner else path, int(data["line_number"]), text.rstrip("\r\n"))


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
    spot = locate(ctx, root)
    where = display(ctx, root)
    try:
        return _search_at(ctx, args, root, spot, pattern, target, limit)
    except FileNotFoundError:
        raise ToolError(f"path not found: {where}") from None
    except safefs.Escape:
        raise ToolError(f"refused: {where} leads outside {spot[0]} through a symbolic link; "
                        "search the link's target instead if you may read it") from None
    except safefs.NotRegular:
        raise ToolError(f"{where} is not a regular file or directory (a FIFO, device or "
                        "socket); nothing to search") from None
    except OSError as exc:
        raise ToolError(f"{where} cannot be searched: {exc.strerror or exc}") from None


def _search_at(ctx: ToolContext, args: dict[str, Any], root: Path, spot: Where, pattern: str,
               target: str, limit: int) -> str:
    where = display(ctx, root)
    if target == "files":
        paths, more = find_files(root, pattern, limit, spot)
        lines = [display(ctx, p) for p in paths if not unreadable(ctx, p)]
        noun = "files"
    else:
        backend = os.environ.get("HERMES_SEARCH_BACKEND", "auto")
        matches, more = search(root, pattern, file_glob=opt_str(args, "file_glob"), limit=limit,
                               backend=backend, where=spot)
        lines = [f"{display(ctx, m.path)}:{m.line}: {_clip(m.text)}" for m in matches
                 if not unreadable(ctx, m.path)]
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
        "Search file contents by regex (target 'content'; results 'path:line: text') or find "
        "files by name glob (target 'files'). Skips .git, node_modules, virtualenvs and "
        "binary files."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {"type": "string"},
            "target": {"type": "string", "enum": ["content", "files"], "default": "content"},
            "path": {"type": "string", "description": "Folder or file.", "default": "."},
            "file_glob": {"type": "string", "description": "Only files matching this glob."},
            "limit": {"type": "integer", "default": 50},
        },
        "required": ["pattern"],
    },
    run=search_files,
    read_only=True,
    untrusted=True,
)
