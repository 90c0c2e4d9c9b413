"""Chat text: UTF-16 lengths, splitting long replies, and Telegram HTML.

Telegram counts a message's length in UTF-16 code units *after* entity parsing and
refuses more than 4,096. Replies are split on the source text (markdown as the model
wrote it), which is never shorter than what Telegram counts: the HTML rendering only
removes markup (fences, backticks, asterisks) and its escapes (&lt;) count as one unit.

Splitting prefers paragraph boundaries (a blank line outside code), keeps a fenced
code block whole when it fits, and otherwise splits it at line boundaries with the
fence closed at the end of one piece and reopened (same info string) at the start of
the next, so every piece is balanced and renders on its own.

Formatting uses parse_mode HTML, not MarkdownV2: HTML needs only `&`, `<`, `>` escaped
(MarkdownV2 reserves 18 characters and rejects any unpaired one), so model text cannot
break it by accident. What is converted: fenced code -> <pre><code>, `inline` -> <code>,
**bold** -> <b>, [text](http...) -> <a>. Everything else stays literal text.
"""

from __future__ import annotations

import html
import re

LIMIT = 4096
FENCE = re.compile(r"^\s*(```+|~~~+)(.*)$")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (what Telegram counts)."""
    return len(text.encode("utf-16-le")) // 2


def _blocks(text: str) -> list[tuple[str, str | None]]:
    """(block text, fence info or None): paragraphs and whole fenced code blocks."""
    blocks: list[tuple[str, str | None]] = []
    para: list[str] = []
    code: list[str] | None = None
    info = ""
    for line in text.split("\n"):
        match = FENCE.match(line)
        if code is not None:
            code.append(line)
            if match and not match.group(2).strip():
                blocks.append(("\n".join(code), info))
                code = None
            continue
        if match:
            if para:
                blocks.append(("\n".join(para), None))
                para = []
            code, info = [line], line.strip()
        elif not line.strip():
            if para:
                blocks.append(("\n".join(para), None))
                para = []
        else:
            para.append(line)
    if code is not None:  # an unclosed fence: close it
        blocks.append(("\n".join([*code, "```"]), info))
    if para:
        blocks.append(("\n".join(para), None))
    return blocks


def _hard(text: str, limit: int) -> list[str]:
    """Split at code points so that no piece exceeds `limit` UTF-16 units."""
    out: list[str] = []
    piece: list[str] = []
    size = 0
    for char in text:
        width = utf16_len(char)
        if size + width > limit:
            out.append("".join(piece))
            piece, size = [], 0
        piece.append(char)
        size += width
    if piece:
        out.append("".join(piece))
    return out


def _lines(text: str, limit: int) -> list[str]:
    """Split at line boundaries (a line longer than `limit` is split hard)."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        for part in _hard(line, limit) if utf16_len(line) > limit else [line]:
            joined = f"{current}\n{part}" if current else part
            if current and utf16_len(joined) > limit:
                out.append(current)
                current = part
            else:
                current = joined
    if current:
        out.append(current)
    return out


def _split_code(block: str, info: str, limit: int) -> list[str]:
    """A fenced block too long for one message: pieces each closed and reopened."""
    lines = block.split("\n")[1:-1]
    room = limit - utf16_len(info) - utf16_len("```") - 2
    return [f"{info}\n{body}\n```" for body in _lines("\n".join(lines), max(room, 16))]


def split_message(text: str, limit: int = LIMIT) -> list[str]:
    """Pieces of `text` of at most `limit` UTF-16 units, split at paragraph or code-block
    boundaries, fences balanced in every piece."""
    if utf16_len(text) <= limit:
        return [text] if text else []
    pieces: list[str] = []
    for block, info in _blocks(text):
        if utf16_len(block) > limit:
            pieces += _split_code(block, info, limit) if info is not None else _lines(block, limit)
        else:
            pieces.append(block)
    out: list[str] = []
    for piece in pieces:
        if out and utf16_len(out[-1]) + 2 + utf16_len(piece) <= limit:
            out[-1] = f"{out[-1]}\n\n{piece}"
        else:
            out.append(piece)
    return out


INLINE = re.compile(r"`([^`\n]+)`|\*\*([^*\n]+)\*\*|\[([^\]\n]+)\]\((https?://[^)\s]+)\)")


def _inline(text: str) -> str:
    out, last = [], 0
    for match in INLINE.finditer(text):
        out.append(html.escape(text[last:match.start()], quote=False))
        code, bold, label, url = match.groups()
        if code is not None:
            out.append(f"<code>{html.escape(code, quote=False)}</code>")
        elif bold is not None:
            out.append(f"<b>{html.escape(bold, quote=False)}</b>")
        else:
            out.append(f'<a href="{html.escape(url)}">{html.escape(label, quote=False)}</a>')
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def to_html(text: str) -> str:
    """Telegram HTML for markdown-ish model text (see the module docstring)."""
    out: list[str] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            out.append(_inline(lines[index]))
            index += 1
            continue
        lang = re.sub(r"[^\w+#.-]", "", match.group(2).strip())[:32]
        body: list[str] = []
        index += 1
        while index < len(lines) and not _closing_fence(lines[index]):
            body.append(lines[index])
            index += 1
        index += 1  # the closing fence (or the end)
        attr = f' class="language-{lang}"' if lang else ""
        out.append(f"<pre><code{attr}>{html.escape(chr(10).join(body), quote=False)}</code></pre>")
    return "\n".join(out)


def balanced(piece: str) -> bool:
    """True when every fence opened in `piece` is closed (for tests and checks)."""
    return all(info is not None or "```" not in block for block, info in _blocks(piece)) and \
        sum(1 for line in piece.split("\n") if FENCE.match(line)) % 2 == 0


def _closing_fence(line: str) -> bool:
    """A fence line with no info string (it closes the open block)."""
    found = FENCE.match(line)
    return found is not None and not found.group(2).strip()
