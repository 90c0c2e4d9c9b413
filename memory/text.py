"""Text that SQLite and the providers can take: no lone surrogates.

Python turns bytes that are not UTF-8 (file names from `os.fsdecode`, argv, a working
directory) into lone surrogates (U+DC80..U+DCFF); SQLite and every JSON-over-UTF-8 wire
refuse them. `storable()` rewrites them as visible escapes: an undecodable byte 0xFE
becomes the four characters `\\xfe`, any other lone surrogate `\\udXXX`. Valid text is
returned unchanged (the same object), so stored prompts stay byte-stable.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar, overload

T = TypeVar("T")

_SURROGATE = re.compile("[\ud800-\udfff]")
NOTE = "bytes that are not UTF-8 are shown as \\xNN escapes"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def is_storable(text: object) -> bool:
    """True when `text` encodes as UTF-8 (the common case, checked fast); non-str: True."""
    if not isinstance(text, str) or text.isascii():
        return True
    return _SURROGATE.search(text) is None


@overload
def storable(text: str) -> str: ...
@overload
def storable(text: T) -> T: ...
def storable(text: object) -> object:
    """`text` with every lone surrogate replaced by a visible escape (see module doc);
    a value that is not a str is returned as it is."""
    if not isinstance(text, str) or is_storable(text):
        return text
    return _SURROGATE.sub(_escape, text)


def storable_value(value: object) -> object:
    """`storable()` for a str; other values (numbers, bytes, None) pass through."""
    return storable(value) if isinstance(value, str) else value


def storable_params(params: Any) -> Any:  # DB-API parameters, as the drivers take them
    """SQL parameters (a sequence or a mapping) with every str made storable."""
    if isinstance(params, dict):
        return {k: storable_value(v) for k, v in params.items()}
    if isinstance(params, (list, tuple)):
        return [storable_value(v) for v in params]
    return params
