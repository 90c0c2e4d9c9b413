"""Globs of the permission rules: `*` any run (within one path name for paths), `**` any
depth, `?` one character - and whether a terminal pattern could match a command some of
whose words are only known when it runs."""

from __future__ import annotations

import re
from functools import lru_cache

WILD = "\x00"  # a computed word in a command's text: any string at all


def command_glob(pattern: str, text: str) -> bool:
    """A terminal pattern on one simple command; `P:*` (Claude Code's) is `P` or `P ...`."""
    if pattern.endswith(":*"):
        prefix = " ".join(pattern[:-2].split())
        return glob(prefix, text, shell=True) or glob(prefix + " *", text, shell=True)
    return glob(" ".join(pattern.split()), text, shell=True)


def glob(pattern: str, text: str, *, shell: bool = False) -> bool:
    """`*` any run (within one path name unless `shell`), `**` any run, `?` one char."""
    return _compiled(pattern, shell).fullmatch(text) is not None


@lru_cache(maxsize=1024)
def _compiled(pattern: str, shell: bool) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            if pattern.startswith("/", i) and not shell:  # `a/**/b` also matches `a/b`
                out[-1] = "(?:.*/)?"
                i += 1
        elif pattern[i] == "*":
            out.append(".*" if shell else "[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("." if shell else "[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.S)


def could_match(pattern: str, words: tuple[str, ...], dynamic: tuple[bool, ...]) -> bool:
    """Might `pattern` match the command `words` once its computed words (`dynamic`)
    are known? Each stands for any text, spaces included (the shell may split it)."""
    if not any(dynamic):
        return command_glob(pattern, " ".join(words))
    text = " ".join(WILD if wild else word for word, wild in zip(words, dynamic, strict=True))
    if pattern.endswith(":*"):
        prefix = " ".join(pattern[:-2].split())
        return _meet(prefix, text) or _meet(prefix + " *", text)
    return _meet(" ".join(pattern.split()), text)


def _meet(pattern: str, text: str) -> bool:
    """Is there a string both the glob `pattern` and `text` (WILD: any string) match?
    reach[j]: pattern[i:] and text[j:] can match the same string (rows i from the end)."""
    fixed = min([k for k in (pattern.find("*"), pattern.find("?"), text.find(WILD)) if k >= 0]
                or [min(len(pattern), len(text))])
    if pattern[:fixed] != text[:fixed]:  # the literal heads differ: most commands, at once
        return False
    n = len(text)
    below = [False] * n + [True]  # i == len(pattern): only the end of text, or WILDs
    for j in range(n - 1, -1, -1):
        below[j] = text[j] == WILD and below[j + 1]
    for i in range(len(pattern) - 1, -1, -1):
        row = [False] * (n + 1)
        char = pattern[i]
        for j in range(n, -1, -1):
            if char == "*":
                row[j] = below[j] or (j < n and row[j + 1])
            elif j < n and text[j] == WILD:
                row[j] = row[j + 1] or below[j]
            else:
                row[j] = j < n and char in (text[j], "?") and below[j + 1]
        below = row
    return below[0]
