"""Text that SQLite and the providers can take: no lone surrogates.

Python turns bytes that are not UTF-8 (file names from `os.fsdecode`, argv, a working
directory) into lone surrogates (U+DC80..U+DCFF); SQLite and every JSON-over-UTF-8 wire
refuse them. `storable()` rewrites them as visible escapes: an undecodable byte 0xFE
becomes the four characters `\\xfe`, any other lone surrogate `\\udXXX`. Valid text is
returned unchanged (the same object), so stored prompts stay byte-stable.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
NOTE = "bytes that are not UTF-8 are shown as \\xNN escapes"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def is_storable(text: str) -> bool:
    """True when `text` encodes as UTF-8 (the common case, checked fast); non-str: True."""
    if not isinstance(text, str) or text.isascii():
        return True
    return _SURROGATE.search(text) is None


def storable(text: Any) -> Any:
    """`text` with every lone surrogate replaced by a visible escape (see module doc)."""
    if is_storable(text):
        return text
    return _SURROGATE.sub(_escape, text)


def storable_value(value: Any) -> Any:
    """`storable()` for a str; other values (numbers, bytes, None) pass through."""
    return storable(value) if isinstance(value, str) else value


def storable_params(params: Any) -> Any:
    """SQL parameters (a sequence or a mapping) with every str made storable."""
    if isinstance(params, dict):
        return {k: storable_value(v) for k, v in params.items()}
    if isinstance(params, (list, tuple)):
        return [storable_value(v) for v in params]
    return params
