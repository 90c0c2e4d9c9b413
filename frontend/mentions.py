"""`@path` mentions: attach a file's content to the user's message.

`attach(text, cwd)` returns the message with each mentioned file appended in a
`<file path=...>` block. The result is the user message itself (stored as typed, so a
resume sends the same bytes). A mention is `@` at the start of a word followed by a path
to an existing file (`user@example.com` is not one; trailing punctuation is ignored);
an `@word` naming no file stays text. Binary files, files over MAX_FILE_BYTES and
attachments over MAX_TOTAL_BYTES in all are refused with a line saying how to fix it.

An image (PNG, JPEG, GIF, WebP by its first bytes) is not inlined: `@shot.png` - or an
image's path pasted into the message, quoted or not, e.g. a file dragged into the
terminal - leaves the text as typed and adds the file's bytes to `images`; the front end
has the agent scale them to its provider's limits and sends them with the message.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

import safefs
from agent.errors import HermesError
from agent.images import looks_like_image, sniff

MAX_FILE_BYTES = 100_000
MAX_TOTAL_BYTES = 250_000
MAX_IMAGE_BYTES = 50 * 1024 * 1024  # read at all; agent/providers/image_scale.py scales what it keeps
MENTION = re.compile(r"(?<!\S)@(\"[^\"]+\"|\S+)")
# a pasted image path: quoted (terminals quote a dragged file with spaces) or one word
PASTED = re.compile(r"""(?<![\S@])('[^'\n]+'|"[^"\n]+"|(?:[^\s\\]|\\ )+)""")
TRAILING = ".,;:!?)]}'\""


class MentionError(HermesError):
    """A mentioned file cannot be attached (binary, too large, unreadable)."""


@dataclass
class Attached:
    """The message to send and what was attached (`files`: (shown path, lines, bytes));
    `unknown`: mentions that named no file (sent as typed)."""

    text: str
    files: list[tuple[str, int, int]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    images: list[tuple[str, bytes]] = field(default_factory=list)  # (shown path, bytes)


def _where(path: Path, cwd: Path) -> tuple[str, str]:
    """(root, rel): a path in the working directory is opened beneath it (a link planted
    there cannot send a secret to the model); one the user wrote elsewhere, beneath /."""
    text, base = os.path.normpath(path), os.path.normpath(cwd)
    if text == base or text.startswith(base.rstrip("/") + "/"):
        return base, os.path.relpath(text, base)
    return "/", text


def _target(word: str, cwd: Path) -> tuple[Path, str] | None:
    """The file a mention names (its path as written), trailing punctuation dropped."""
    candidates = [word.strip('"')] if word.startswith('"') else [word, word.rstrip(TRAILING)]
    for name in candidates:
        if not name:
            continue
        path = Path(name).expanduser()
        path = path if path.is_absolute() else cwd / path
        try:
            found = safefs.stat_beneath(*_where(path, cwd))
        except safefs.Escape:
            raise MentionError(f"@{name} leads outside the working directory through a "
                               "symbolic link; it was not attached",
                               "mention the file by its real path if you mean it") from None
        except OSError:
            continue
        if found is not None and stat.S_ISREG(found.st_mode):
            return path, name
    return None


def _too_large(what: str, size: int, hint: str, limit: int = MAX_FILE_BYTES) -> MentionError:
    return MentionError(f"{what} is {size:,} bytes, over the {limit:,}-byte limit for "
                        "an attachment", hint)


def _raw(path: Path, name: str, cwd: Path, limit: int) -> bytes:
    try:
        fd = safefs.open_regular(*_where(path, cwd))
        with os.fdopen(fd, "rb") as handle:
            size = os.fstat(fd).st_size
            if size > limit:
                raise _too_large(f"@{name}", size, "mention a smaller file, or ask the model to "
                                 "read the part you need (read_file takes a line range)", limit)
            return handle.read()
    except safefs.Escape:
        raise MentionError(f"@{name} leads outside the working directory through a symbolic "
                           "link; it was not attached",
                           "mention the file by its real path if you mean it") from None
    except OSError as exc:
        raise MentionError(f"@{name} cannot be read: {exc.strerror or exc}",
                           "check the path and its permissions") from None


def _read(path: Path, name: str, cwd: Path) -> str | bytes:
    """The file's text, or its bytes when it is an image."""
    image = looks_like_image(name)
    data = _raw(path, name, cwd, MAX_IMAGE_BYTES if image else MAX_FILE_BYTES)
    if sniff(data):
        return data
    if image:
        raise MentionError(f"{name} is not an image hermes can attach (PNG, JPEG, GIF or "
                           "WebP by its first bytes)", "convert it to PNG or JPEG first")
    if len(data) > MAX_FILE_BYTES:
        raise _too_large(f"@{name}", len(data), "mention a smaller file")
    return _text(data, f"@{name}")


def _text(data: bytes, what: str) -> str:
    """The rules every attachment follows: text, UTF-8."""
    if b"\0" in data[:8192]:
        raise MentionError(f"{what} is a binary file; only text can be attached",
                           "attach a text file (or describe the binary file in words)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MentionError(f"{what} is not UTF-8 text; only text can be attached",
                           "convert it to UTF-8 first (e.g. iconv)") from None


def _block(tag: str, content: str) -> tuple[str, int]:
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    body = content if content.endswith("\n") or not content else content + "\n"
    return f'<{tag} lines="{lines}">\n{body}</{tag.split()[0]}>', lines


def piped(text: str, data: bytes) -> Attached:
    """`text` with what was piped to stdin appended in a `<stdin>` block, by the rules of
    a mentioned file (size, text, UTF-8); nothing piped leaves `text` as it is."""
    if len(data) > MAX_FILE_BYTES:
        raise _too_large("the piped input (stdin)", len(data),
                         "pipe less (e.g. through head), or name the file with @path")
    content = _text(data, "the piped input (stdin)")
    if not content.strip():
        return Attached(text)
    block, lines = _block("stdin", content)
    return Attached(text.rstrip() + "\n\n" + block, [("stdin", lines, len(data))])


def attach(text: str, cwd: Path) -> Attached:
    """`text` with the files it mentions appended (see module docstring); raises
    MentionError (nothing attached) when one cannot be."""
    out = Attached(text)
    blocks: list[str] = []
    seen: set[Path] = set()
    total = 0
    for match in MENTION.finditer(text):
        found = _target(match.group(1), cwd)
        if found is None:
            out.unknown.append(match.group(1))
            continue
        path, name = found
        if path.resolve() in seen:
            continue
        seen.add(path.resolve())
        content = _read(path, name, cwd)
        if isinstance(content, bytes):
            out.images.append((name, content))
            continue
        total += len(content.encode("utf-8"))
        if total > MAX_TOTAL_BYTES:
            raise MentionError(f"the mentioned files add up to over {MAX_TOTAL_BYTES:,} bytes",
                               "mention fewer or smaller files")
        block, lines = _block(f'file path="{name}"', content)
        blocks.append(block)
        out.files.append((name, lines, len(content.encode("utf-8"))))
    for name, data in _pasted(text, cwd, seen):
        out.images.append((name, data))
    if blocks:
        out.text = text.rstrip() + "\n\n" + "\n\n".join(blocks)
    return out


def _pasted(text: str, cwd: Path, seen: set[Path]) -> list[tuple[str, bytes]]:
    """Images whose paths were pasted into `text` without an `@` (quoted or not;
    `\\ ` for a space): only paths (with a `/`) with an image suffix that name a file."""
    found = []
    for match in PASTED.finditer(text):
        word = match.group(1)
        name = word[1:-1] if word[0] in "'\"" else word.replace("\\ ", " ")
        if "/" not in name or not looks_like_image(name.rstrip(TRAILING)):
            continue  # a path (a bare "shot.png" in a sentence is not pasted: use @)
        target = _target('"' + name + '"', cwd) or _target(name, cwd)
        if target is None or target[0].resolve() in seen:
            continue
        seen.add(target[0].resolve())
        data = _read(*target, cwd)
        if isinstance(data, bytes):
            found.append((target[1], data))
    return found


def read_image(word: str, cwd: Path) -> tuple[str, bytes]:
    """(shown path, bytes) of the image file `word` names (`--image FILE`); MentionError
    when there is no such file, ImageError (agent/providers/image_scale.py) when it is no image."""
    found = _target('"' + word + '"', cwd)
    if found is None:
        raise MentionError(f"{word}: no such file", "check the path of the image")
    return found[1], _raw(*found, cwd, MAX_IMAGE_BYTES)
