"""Text bash evaluates as arithmetic, for agent/permissions/shell.py: `risk(line)` says
why a line may run commands hidden in a variable's value, or "".

Bash evaluates a variable named in arithmetic as an expression, and an array subscript
in it runs command substitutions: `x='a[$(git push)]'; : $((x))` runs `git push`, and
so do `((x))`, `$[x]`, `let x`, `[[ x -eq 0 ]]` (the operands of -eq/-ne/-lt/-le/-gt/-ge),
`${s:x}`, `${a[x]}`, `a[x]=1` and integer variables (`declare -i`). The value may come
from anywhere (a file, an earlier command), so this fails closed: every name used in
arithmetic must be one whose value the line shows is a number - a shell counter
(RANDOM, SECONDS, ...), or a name the line only ever sets to digits or by arithmetic
(`for ((i=0; i<3; i++))`), and uses nowhere else. A subscript holding a substitution
(`read 'a[$(cmd)]'`, `printf -v 'a[$(cmd)]'`) is refused as such.

The scan is of the raw text, quotes included: a quoted `$((x))` counts too (a false
alarm costs a question or a refusal, never a missed command).
"""

from __future__ import annotations

import re

_CUES = ("((", "[", "${", "let", "declare", "typeset", "local", "export", "readonly")
_NAME = re.compile(r"(?<![\w$#])\$?\{?([A-Za-z_]\w*)")
_COMPARE = re.compile(r"(\S+)\s+-(?:eq|ne|lt|le|gt|ge)\s+(\S+)")
_LET = re.compile(r"\blet\s+([^;&|\n]*)")
_TEST = re.compile(r"\[\[(.*?)\]\]", re.S)
_EXPANSION = re.compile(r"\$\{#?\w+(?:\[([^]@*][^]]*)\]|:([^-=+?}][^}]*))")  # ${a[i]}, ${s:i}
_ELEMENT = re.compile(r"\b\w+\[([^]]*)\]\+?=")  # a[i]=
_SUBSCRIPT_RUNS = re.compile(r"\w\[[^\]\n]*(?:\$\(|`)")
_INTEGER = re.compile(r"\b(?:declare|typeset|local|export|readonly)\s+(?:-\w+\s+)*-\w*i")
_SET = re.compile(r"([A-Za-z_]\w*)\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)|([A-Za-z_]\w*)\s*(?:\+\+|--)"
                  r"|(?:\+\+|--)\s*([A-Za-z_]\w*)")
COUNTERS = frozenset({"RANDOM", "SRANDOM", "SECONDS", "LINENO", "PPID", "UID", "EUID",
                      "BASHPID", "EPOCHSECONDS", "OPTIND", "SHLVL"})


def risk(line: str) -> str:
    """Why arithmetic in `line` may run commands hidden in a value ("" when it cannot)."""
    if not any(cue in line for cue in _CUES):
        return ""  # most lines: no arithmetic at all
    if _SUBSCRIPT_RUNS.search(line):
        return "an array subscript runs a command substitution when it is evaluated"
    if _INTEGER.search(line):
        return "an integer variable evaluates what is assigned to it as arithmetic"
    bodies, rest = _bodies(line)
    if not bodies:
        return ""
    numeric = _numeric(line, bodies, rest)
    for body in bodies:
        for name in _NAME.findall(body):
            if name not in numeric:
                return f"arithmetic on `{name}`, whose value could run commands"
    return ""


def _bodies(line: str) -> tuple[list[str], str]:
    """The arithmetic texts of `line`, and the line without them."""
    bodies: list[str] = []
    spans: list[tuple[int, int]] = []
    for opener, closer in (("((", "))"), ("$[", "]")):
        start = line.find(opener)
        while start >= 0:
            end = _closing(line, start + len(opener), opener[-1], closer[0])
            bodies.append(line[start + len(opener):end])
            spans.append((start - (line[start - 1:start] == "$"), end + len(closer)))
            start = line.find(opener, end)
    for found in _LET.finditer(line) if "let" in line else ():
        bodies.append(found.group(1))
        spans.append(found.span())
    for found in _TEST.finditer(line) if "[[" in line else ():
        bodies += [side for pair in _COMPARE.findall(found.group(1)) for side in pair]
    for found in _EXPANSION.finditer(line) if "${" in line else ():
        bodies.append(found.group(1) or found.group(2))
    for found in _ELEMENT.finditer(line) if "]" in line else ():
        bodies.append(found.group(1))
    rest = line
    for start, end in sorted(spans, reverse=True):
        rest = rest[:start] + "0" + rest[end:]  # its value is a number
    return [b for b in bodies if b], rest


def _closing(line: str, at: int, opener: str, closer: str) -> int:
    """Where the arithmetic opened before `at` closes (balanced), or the end."""
    level = 0
    for i in range(at, len(line)):
        if line[i] == opener:
            level += 1
        elif line[i] == closer:
            if level == 0:
                return i
            level -= 1
    return len(line)


def _numeric(line: str, bodies: list[str], rest: str) -> set[str]:
    """Names whose value the line shows is a number: counters, and names first set to
    digits, then set only by arithmetic or to digits, used nowhere else outside it."""
    names = set(COUNTERS)
    for body in bodies:
        names |= {a or b or c for a, b, c in _SET.findall(body)}
    names |= set(re.findall(r"(?<![\w-])([A-Za-z_]\w*)=\d+(?![\w.])", rest))
    safe = set(COUNTERS)
    for name in names - COUNTERS:
        outside = re.sub(rf"(?<![\w-]){name}=\d+(?![\w.])|\$\{{?{name}\b}}?", " ", rest)
        first = re.search(rf"(?<![\w#-])(\$\{{?)?{name}\b", line)
        if first is None or first.group(1) or \
                not re.match(rf"{name}\s*=\s*\d+(?![\w.])", line[first.start():]):
            continue  # used before the line sets it: its value comes from outside
        if not re.search(rf"(?<![\w$]){name}\b", outside):
            safe.add(name)
    return safe
