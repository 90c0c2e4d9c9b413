"""Model-chosen text made visible in a question: what the user approves is what runs.

A command, path, URL or tool argument the model chose is shown to a person before it
runs (the REPL's approval, a chat's buttons, an editor's permission request). Raw, its
control characters act on the screen: `\\r` and `ESC[2K` erase the line, so the user
reads `ls ~/Downloads` while `cp ~/.ssh/id_rsa ...` runs. `visible` writes each control
character, escape, invisible format character (zero-width, bidirectional overrides)
and line/paragraph separator as a visible escape (`\\x1b`, `\\r`, `\\u202e`); newlines
stay newlines and tabs stay tabs, so multi-line text is shown whole, line by line.
Tool output on a terminal is `hermes_cli/render/terminal_text.py`'s (controls removed).
"""

from __future__ import annotations

import unicodedata

_NAMED = {"\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v", "\a": "\\a", "\0": "\\0"}
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})  # controls, format, surrogates, separators


def _shown(char: str) -> str:
    if char in "\n\t" or unicodedata.category(char) not in _HIDDEN:
        return char
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with every character that would act on a screen instead of showing
    written as a visible escape (see the module docstring); the rest unchanged."""
    return "".join(_shown(char) for char in text)
