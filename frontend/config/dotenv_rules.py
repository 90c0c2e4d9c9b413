"""How a value of HERMES_HOME/.env reads: python-dotenv's rules (it is not a dependency;
these are the rules its parser applies to one `KEY=value` line's value); and which
variables this process took from a .env rather than its environment (`from_dotenv`:
where a key was read, for /config, `hermes config` and `hermes doctor`)."""

from __future__ import annotations

import os
import re

#: the names settings.load_dotenv put into os.environ from a .env file
LOADED: set[str] = set()


def from_dotenv(name: str) -> bool:
    """Whether os.environ's `name` was loaded from a .env file by this process."""
    return name in LOADED and name in os.environ

_DOUBLE_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$')
_SINGLE_QUOTED = re.compile(r"'([^']*)'\s*(?:#.*)?$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'"}


def dotenv_value(raw: str) -> str:
    """A value as python-dotenv reads it: 'single' quotes literal, "double" quotes with
    backslash escapes, a comment after either; unquoted, a ` #` starts a comment
    (`sk-ant-...  # work key` is the key alone) and a `#` inside a word stays."""
    value = raw.strip()
    if (found := _SINGLE_QUOTED.match(value)) is not None:
        return found.group(1)
    if (found := _DOUBLE_QUOTED.match(value)) is not None:
        return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), found.group(1))
    return re.split(r"\s+#", value, maxsplit=1)[0].rstrip()
