"""The untrusted-data frame: how outside text (files, command output, search hits, past
sessions, MCP results) reaches the model.

A tool marked `Tool(untrusted=True)` has every result wrapped by `frame()` in the
registry's dispatch, never in the tool itself:

    <untrusted source="read_file">
    ...the text, with any closing marker neutralised...
    </untrusted>

The frame is the same bytes for the same result (no nonce, no clock), so caching is
unaffected; the system prompt's tool guidance (`UNTRUSTED_GUIDANCE`,
agent/tools/toolsets.py) says once what it means. The text cannot close the frame early: anything that reads as the
closing marker (any case, spaces, full-width `<` or `/`) gets a backslash before its
slash, which a reader sees and a model does not take for the end of the data.
"""

from __future__ import annotations

import re

CLOSE = "</untrusted>"
# `<` (or full-width / small / angle-bracket look-alikes), optional spaces, `/` (or
# full-width / division slash), optional spaces, "untrusted" in any case
_FAKE_CLOSE = re.compile(r"([<\uff1c\ufe64\u2039\u3008\u27e8]\s*)([/\uff0f\u2215]\s*untrusted)",
                         re.IGNORECASE)


def neutralise(text: str) -> str:
    """`text` with every look-alike of the closing marker escaped (`<\\/untrusted`)."""
    return _FAKE_CLOSE.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def frame(source: str, text: str) -> str:
    """`text` inside the untrusted-data frame, labelled with its `source` (a tool name)."""
    body = neutralise(text)
    return f'<untrusted source="{source}">\n{body}\n{CLOSE}'


def unframe(text: str) -> str:
    """The text inside a frame (as neutralised), or `text` itself when it is not framed:
    what a one-line digest of a stored tool result should describe."""
    if text.startswith('<untrusted source="') and text.endswith("\n" + CLOSE):
        head, _, rest = text.partition("\n")
        if head.endswith('">'):
            return rest[: -len(CLOSE) - 1]
    return text
