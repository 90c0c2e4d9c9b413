"""Chat text: UTF-16 lengths, splitting long replies, and Telegram HTML.

Telegram counts a message's length in UTF-16 code units *after* entity parsing and
refuses more than 4,096. Replies are split on the source text (markdown as the model
wrote it), which is never shorter than what Telegram counts: the HTML rendering only
removes markup (fences, backticks, asterisks) and its escapes (&lt;) count as one unit.

Splitting keeps every character once, in order (the pieces carry consecutive slices of
the text), prefers paragraph boundaries (a blank line outside code), keeps a fenced
code block whole when it fits, and otherwise splits it at line boundaries (a line too
long: between code points) with the block closed at the end of one piece and reopened
(its marker and language, never a long info line) at the start of the next, so every
piece is balanced and renders on its own.

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
RUN, LANG = 8, 16  # a reopened block's fence: at most RUN marker characters, LANG of language
CLOSE_ROOM = "\n" + "`" * RUN  # the most a closing fence adds to a piece
MIN_LIMIT = RUN + LANG + 1 + len(CLOSE_ROOM) + 6  # room for a reopened block's first units


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (what Telegram counts)."""
    return len(text.encode("utf-16-le")) // 2


def _fit(text: str, units: int) -> int:
    """How many code points of `text`, from its start, fit in `units` UTF-16 units."""
    size = 0
    for count, char in enumerate(text):
        size += 2 if ord(char) > 0xFFFF else 1
        if size > units:
            return count
    return len(text)


def open_block(text: str, opener: str | None) -> str | None:
    """The opening line of the code block still open at the end of `text`, reading it
    line by line from inside `opener`'s block (None: from outside any block). A fence
    line opens a block; inside one, only a fence line without an info string closes it
    (what `to_html` does)."""
    for line in text.split("\n"):
        found = FENCE.match(line)
        if found is None:
            continue
        if opener is None:
            opener = line
        elif not found.group(2).strip():
            opener = None
    return opener


def _marker(opener: str) -> str:
    found = FENCE.match(opener)
    return found.group(1)[:RUN] if found else "```"


def reopen_line(opener: str | None) -> str:
    """The fence line (short: its marker and language) reopening `opener`'s block."""
    if opener is None:
        return ""
    found = FENCE.match(opener)
    words = found.group(2).split() if found else []
    lang = re.sub(r"[^\w+#.-]", "", words[0])[:LANG] if words else ""
    return f"{_marker(opener)}{lang}\n"


def _render(opener: str | None, core: str) -> str:
    """One piece: `core` (a slice of the text), its block reopened before it when it
    starts inside one, and the block open at its end closed after it."""
    left_open = open_block(core, opener)
    if left_open is None:
        return reopen_line(opener) + core
    return f"{reopen_line(opener)}{core}{'' if core.endswith(chr(10)) else chr(10)}{_marker(left_open)}"


def _cut(text: str, start: int, opener: str | None, room: int) -> int:
    """Where the piece starting at `start` ends: the last line break in the second half
    of the `room` units that fit, outside a code block at a paragraph or block
    boundary first, then outside a block, then any; else a hard cut."""
    hard = start + _fit(text[start:], room)
    if hard >= len(text):
        return len(text)
    best, best_score = hard, 0
    state, at = opener, start
    for line in text[start:hard].split("\n")[:-1]:  # the lines that end in the window
        before = state
        state = open_block(line, state)
        at += len(line) + 1
        if at <= start + (hard - start) // 2:
            continue
        eol = text.find("\n", at)
        following = text[at:eol if eol >= 0 else len(text)]
        boundary = not line.strip() or (before is not None and state is None) or \
            (state is None and FENCE.match(following) is not None)
        score = 1 if state is not None else 3 if boundary else 2
        if score >= best_score:
            best, best_score = at, score
    return best


def split_message(text: str, limit: int = LIMIT) -> list[str]:
    """`text` in pieces of at most `limit` UTF-16 units, in order: every character once
    (the slices of `text` the pieces carry join to `text`), each piece's code fences
    balanced (a block cut in two is closed at the end of one piece and reopened, marker
    and language, at the start of the next). Cuts fall at paragraph or code-block
    boundaries where one is in the second half of the room, else at a line break, else
    between code points. A piece of whitespace alone is not sent (no platform takes an
    empty message)."""
    return [piece for _, piece in pieces_of(text, limit) if piece.strip()]


def preview(text: str, limit: int) -> str:
    """What a streamed message shows of `text` so far: all of it, or its first piece
    and " …" (`limit` leaves room for them)."""
    if utf16_len(text) <= limit:
        return text
    return next(iter(split_message(text, limit - 2)), "") + " …"


def pieces_of(text: str, limit: int = LIMIT) -> list[tuple[str, str]]:
    """(slice of `text`, the piece sent for it) in order: `split_message`'s work, the
    slices kept so that a test can check that they join to `text`."""
    if limit < MIN_LIMIT:
        raise ValueError(f"a chat message limit below {MIN_LIMIT} units cannot hold a piece")
    out: list[tuple[str, str]] = []
    start, opener = 0, None
    while start < len(text):
        head = utf16_len(reopen_line(opener))
        end = _cut(text, start, opener, limit - head)
        if utf16_len(_render(opener, text[start:end])) > limit:  # no room to close a block
            end = _cut(text, start, opener, limit - head - len(CLOSE_ROOM))
        core = text[start:end]
        out.append((core, _render(opener, core)))
        start, opener = end, open_block(core, opener)
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
        lang, _, rest = match.group(2).strip().partition(" ")
        lang = re.sub(r"[^\w+#.-]", "", lang)[:32]
        body: list[str] = [rest.strip()] if rest.strip() else []  # shown, not dropped
        index += 1
        while index < len(lines) and not _closing_fence(lines[index]):
            body.append(lines[index])
            index += 1
        index += 1  # the closing fence (or the end)
        attr = f' class="language-{lang}"' if lang else ""
        out.append(f"<pre><code{attr}>{html.escape(chr(10).join(body), quote=False)}</code></pre>")
    return "\n".join(out)


def balanced(piece: str) -> bool:
    """True when every code block opened in `piece` is closed (for tests and checks)."""
    return open_block(piece, None) is None


def _closing_fence(line: str) -> bool:
    """A fence line with no info string (it closes the open block)."""
    found = FENCE.match(line)
    return found is not None and not found.group(2).strip()
