"""Stored text made safe to print on a terminal.

Tool output (a `cat` of a binary, a colourised `ls`) can hold escape sequences that
move the cursor, retitle the window or hide text. `for_terminal` removes them - CSI,
OSC, DCS/APC/PM strings and other C0/C1 controls except newline and tab - when the
stream is a terminal; piped output keeps its bytes.
"""

from __future__ import annotations

import re
from typing import TextIO

_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI ... final byte
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC / DCS / SOS / PM / APC strings
    r"|\x1b[@-Z\\-_]"  # two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # other controls (not \t \n)
)


def strip_controls(text: str) -> str:
    """`text` without terminal control sequences or control characters (\\n, \\t kept)."""
    return _SEQUENCES.sub("", text)


def for_terminal(text: str, stream: TextIO) -> str:
    """`strip_controls(text)` when `stream` is a terminal, else `text` unchanged."""
    isatty = getattr(stream, "isatty", None)
    return strip_controls(text) if isatty is not None and isatty() else text
