"""The Bot API's text rules as the fake applies them (documented at
core.telegram.org/bots/api#formatting-options and #sendmessage):

- parse_mode HTML: only the supported tags, properly nested and closed; a `<` that does
  not start one is an error; `&lt; &gt; &amp; &quot;` and numeric entities count as one
  character each.
- parse_mode MarkdownV2: the characters _ * [ ] ( ) ~ ` > # + - = | { } . ! are
  reserved and must be escaped with a backslash outside entities; entities (*bold*,
  _italic_, __underline__, ~strike~, ||spoiler||, `code`, ```pre```, [text](url)) must
  be closed, innermost first. Inside code only ` and \\ need escaping.
- The text after entity parsing must be 1..4,096 UTF-16 code units.
Errors are the Bot API's descriptions ("Bad Request: can't parse entities: ...").
"""

from __future__ import annotations

import html
import re

LIMIT = 4096
HTML_TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span",
             "tg-spoiler", "a", "code", "pre", "blockquote", "tg-emoji"}
TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+=(?:\"[^\"]*\"|'[^']*'))*)\s*>")
ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|lt|gt|amp|quot);")
RESERVED = set("_*[]()~`>#+-=|{}.!")


class TextError(ValueError):
    """A Bot API 400: its description."""


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _html_visible(text: str) -> str:
    out: list[str] = []
    stack: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "<":
            match = TAG.match(text, index)
            if match is None:
                raise TextError(f"Bad Request: can't parse entities: unsupported start tag at "
                                f"byte offset {len(text[:index].encode())}")
            closing, name = match.group(1), match.group(2).lower()
            if name not in HTML_TAGS:
                raise TextError(f"Bad Request: can't parse entities: unsupported start tag "
                                f"\"{name}\" at byte offset {len(text[:index].encode())}")
            if closing:
                if not stack or stack[-1] != name:
                    raise TextError("Bad Request: can't parse entities: can't find end tag "
                                    f"corresponding to start tag \"{stack[-1] if stack else name}\"")
                stack.pop()
            else:
                stack.append(name)
            index = match.end()
        elif char == "&" and ENTITY.match(text, index):
            match = ENTITY.match(text, index)
            out.append(html.unescape(match.group(0)))
            index = match.end()
        else:
            out.append(char)
            index += 1
    if stack:
        raise TextError(f"Bad Request: can't parse entities: can't find end tag corresponding "
                        f"to start tag \"{stack[-1]}\"")
    return "".join(out)


def _md_visible(text: str) -> str:  # noqa: C901, PLR0912 - one scanner, read top to bottom
    out: list[str] = []
    stack: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        code = stack and stack[-1] in ("`", "```")
        if char == "\\" and index + 1 < len(text):
            out.append(text[index + 1])
            index += 2
            continue
        if code:
            if text.startswith(stack[-1], index):
                index += len(stack.pop())
            else:
                out.append(char)
                index += 1
            continue
        for mark in ("```", "||", "__", "`", "*", "_", "~"):
            if text.startswith(mark, index):
                break
        else:
            mark = ""
        if mark == "```":
            stack.append(mark)
            end = text.find("\n", index)
            index = len(text) if end < 0 else end + 1  # the language line
        elif mark:
            if stack and stack[-1] == mark:
                stack.pop()
            elif mark in stack:
                raise TextError("Bad Request: can't parse entities: can't find end of the "
                                f"entity starting at byte offset {len(text[:index].encode())}")
            else:
                stack.append(mark)
            index += len(mark)
        elif char == "[":
            stack.append("[")
            index += 1
        elif char == "]" and stack and stack[-1] == "[":
            stack.pop()
            end = text.find(")", index)
            if not text.startswith("(", index + 1) or end < 0:
                raise TextError("Bad Request: can't parse entities: can't find end of a url")
            index = end + 1
        elif char in RESERVED:
            raise TextError(f"Bad Request: can't parse entities: Character '{char}' is reserved "
                            "and must be escaped with the preceding '\\'")
        else:
            out.append(char)
            index += 1
    if stack:
        raise TextError("Bad Request: can't parse entities: can't find end of the entity "
                        f"starting with '{stack[-1]}'")
    return "".join(out)


def visible_text(text: str, parse_mode: str | None) -> str:
    """What the user will see; raises TextError as the Bot API answers 400."""
    mode = (parse_mode or "").lower()
    if mode == "html":
        shown = _html_visible(text)
    elif mode == "markdownv2":
        shown = _md_visible(text)
    elif mode in ("", "none"):
        shown = text
    else:
        raise TextError(f"Bad Request: unsupported parse_mode {parse_mode!r}")
    if not shown.strip():
        raise TextError("Bad Request: message text is empty")
    if utf16_len(shown) > LIMIT:
        raise TextError("Bad Request: message is too long")
    return shown
