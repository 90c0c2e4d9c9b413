"""read_file: a window of a text file with line numbers ("    12|text"), or an image.

An image (PNG, JPEG, GIF, WebP by its first bytes) is shown to the model: the result is
one line of text and the picture beside it (`Shown`), scaled to the provider's limits
once (agent/providers/image_scale.py) and stored with the result, so later requests re-send the
same bytes. Anthropic takes images inside a tool result; OpenAI's Responses API takes
them in `function_call_output`; Chat Completions takes only text in a tool message, so
its adapter sends them in a user message right after the run of tool results
(agent/providers/openai/adapter.py) - the model still sees them on the next call. A
model without vision gets an error result naming the image instead."""

from __future__ import annotations

import difflib
import errno
import io
import os
from pathlib import Path
from typing import Any

import safefs
from agent.errors import ToolError
from agent.images import ImageError, sniff
from agent.images import WithImages as Shown
from agent.sandbox.file_policy import guard_read
from agent.tools._common import SNIFF_BYTES, display, looks_binary, opt_int, resolve
from agent.tools.file_open import locate, open_read
from agent.tools.registry import Tool, ToolContext, require
from safefs import NotRegular
from safefs.files import opened_root as safefs_root

MAX_LINES = 2000
MAX_CHARS = 100_000
MAX_LINE_CHARS = 2000
MAX_IMAGE_BYTES = 50 * 1024 * 1024


def read_file(args: dict[str, Any], ctx: ToolContext) -> str:
    """Return lines offset..offset+limit-1 of a text file, numbered from 1."""
    path = resolve(ctx, require(args, "path"))
    offset = opt_int(args, "offset", 1, 1, 10**12)
    limit = opt_int(args, "limit", 500, 1, MAX_LINES)
    guard_read(ctx, path)
    shown: list[str] = []
    used = 0
    total = 0
    cut_at: int | None = None
    with os.fdopen(_open(ctx, path), "rb") as handle:
        head = handle.read(SNIFF_BYTES)
        if sniff(head):
            return _image(ctx, path, head + handle.read(MAX_IMAGE_BYTES))
        if looks_binary(head):
            raise ToolError(
                f"{display(ctx, path)} is a binary file ({os.fstat(handle.fileno()).st_size:,} "
                "bytes); read_file shows text only. Inspect it with the terminal (file, xxd, strings)."
            )
        handle.seek(0)
        port = ctx.services.files  # an editor's buffer, after the local checks
        text = None if port is None else port.read_text(path)
        lines = handle if text is None else io.BytesIO(text.encode("utf-8"))
        for total, raw in enumerate(lines, start=1):
            if total < offset or len(shown) >= limit or cut_at is not None:
                continue
            line = _render(total, raw)
            if used + len(line) > MAX_CHARS and shown:
                cut_at = total
                continue
            shown.append(line)
            used += len(line) + 1
    return _finish(ctx, path, shown, offset, total, cut_at)


def _image(ctx: ToolContext, path: Path, data: bytes) -> str:
    name = display(ctx, path)
    if ctx.services.attach_image is None:
        raise ToolError(f"{name} is an image; read_file cannot show images here")
    try:
        prepared = ctx.services.attach_image(data, name)
    except ImageError as exc:
        raise ToolError(f"{name} is an image, not shown: {exc.message}") from None
    return Shown.of(f"image {prepared.note()}; attached below", (prepared.image,))


def _open(ctx: ToolContext, path: Path) -> int:
    """The file's descriptor, opened beneath its root (agent/tools/file_open.py)."""
    try:
        return open_read(ctx, path)
    except NotRegular as exc:
        if exc.errno == errno.EISDIR:
            raise ToolError(f"{display(ctx, path)} is a directory. List it with "
                            "search_files(target='files') or the terminal.") from None
        raise ToolError(f"{display(ctx, path)} is not a regular file") from None
    except (FileNotFoundError, NotADirectoryError):
        hint = _similar(ctx, path)
        raise ToolError(f"file not found: {display(ctx, path)}"
                        + (f". Did you mean: {hint}?" if hint else "")) from None
    except OSError as exc:
        raise ToolError(f"{display(ctx, path)} cannot be read: {exc.strerror or exc}") from None


def _similar(ctx: ToolContext, path: Path) -> str:
    """Close file names in the same directory, for the 'not found' message (listed
    beneath the directory's root: a link out lists nothing)."""
    root, rel = locate(ctx, path.parent)
    try:
        with safefs_root(root) as top:
            fd = safefs.open_beneath(top, rel, os.O_RDONLY | os.O_DIRECTORY)
        try:
            names = os.listdir(fd)
        finally:
            os.close(fd)
    except OSError:
        return ""
    close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
    return ", ".join(str(path.parent / name) for name in close)


def _render(number: int, raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
    if len(text) > MAX_LINE_CHARS:
        text = text[:MAX_LINE_CHARS] + f"... [line cut: {len(text):,} chars]"
    return f"{number:>6}|{text}"


def _finish(
    ctx: ToolContext, path: Path, shown: list[str], offset: int, total: int, cut_at: int | None
) -> str:
    name = display(ctx, path)
    if total == 0:
        return f"{name} is empty (0 lines)."
    if offset > total:
        raise ToolError(f"offset {offset} is past the end of {name} ({total} lines)")
    last = offset + len(shown) - 1
    body = "\n".join(shown)
    if cut_at is not None:
        return (
            f"{body}\n[output capped at {MAX_CHARS:,} characters: showing lines {offset}-{last} "
            f"of {total}; continue with offset={last + 1}]"
        )
    if last < total:
        return f"{body}\n[lines {offset}-{last} of {total}; continue with offset={last + 1}]"
    return body


TOOL = Tool(
    name="read_file",
    toolset="file",
    description=(
        f"Read a text file as 'LINE|text' lines: 'limit' lines (max {MAX_LINES}) from line "
        "'offset'; of a large file read the part you need. Images are shown to you; other "
        "binary files are refused."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Absolute, ~ or relative to the working directory."},
            "offset": {"type": "integer", "default": 1},
            "limit": {"type": "integer", "default": 500},
        },
        "required": ["path"],
    },
    run=read_file,
    read_only=True,
    untrusted=True,
)
