"""Programs that run a command line given as text, for agent/permissions/shell.py.

`runs(name, argv)` says what such a program runs: a shell's `-c` string (its options
parsed as the shell parses them: `-o X`, `+O X`, `--rcfile F`, clusters like `-ec`, `--`),
`su -c`/`runuser -c`, `script -c`, `trap 'CMD' SIG`, `alias NAME='CMD'` (an alias may
run once defined: `shopt -s expand_aliases`), `eval`, `watch`, `flock -c`; or why it
cannot be told - text computed when it runs, or commands read from the line's own input
(`bash <<< CMD`, `bash /dev/stdin`, `source /dev/stdin`, `bash -s`, `su` or `script`
without a command, `at`/`batch`/`crontab`, `make -f -`). Fail closed: anything it cannot read counts as unknown, and the
rules treat an unknown line as one a deny/ask rule covers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from agent.permissions.shell_lex import Token

SHELLS = frozenset({"sh", "bash", "rbash", "zsh", "dash", "ksh", "ksh93", "mksh", "lksh", "oksh",
                    "pdksh", "fish", "ash", "yash", "posh", "csh", "tcsh"})
_VERSIONED = re.compile(r"^([a-z]+?)[-.]?[\d.]+$")  # `bash5.2`, `bash-5`: the shell itself
# a file that is the line's own input (a here-doc, a here-string, a pipe)
INPUT = re.compile(r"^(?:-|/dev/(?:stdin|tty|fd/\d+)|/proc/(?:self|thread-self|\d+)/fd/\d+)$")
_SHELL_VALUES = frozenset({"--rcfile", "--init-file", "--init-command", "--command"})
_SCRIPT_VALUES = "EIOBTmo"  # script(1)'s short options that take a value
_READS_INPUT = "a shell reads its commands from its input"


@dataclass
class Runs:
    lines: list[str] = field(default_factory=list)  # command lines it runs
    why: str = ""  # why what it runs cannot be told ("" when it can)


@lru_cache(maxsize=1024)
def program(word: str) -> str:
    """The program a command word names: its base name (`/bin/bash5.2` is bash)."""
    name = word.rsplit("/", 1)[-1]
    versioned = _VERSIONED.match(name)
    return versioned.group(1) if versioned and versioned.group(1) in SHELLS else name


def runner(name: str) -> bool:
    """Is `name` a program (not a builtin: `.` is a folder as an argument) that runs text:
    a shell, ssh, script, su, runuser, watch?"""
    return name in SHELLS or name in ("ssh", "script", "su", "runuser", "watch")


def runs(name: str, argv: list[Token]) -> Runs | None:
    """What `argv` (a command whose program is `name`) runs as text; None when `name`
    is not such a program."""
    if name in SHELLS:
        return _shell(name, argv[1:])
    if name in ("su", "runuser"):
        return _su(name, argv[1:])
    reader = _READERS.get(name)
    return reader(name, argv[1:]) if reader is not None else None


def _alias(name: str, args: list[Token]) -> Runs:
    found = Runs()
    for token in args:
        value = token.text.split("=", 1)[1] if "=" in token.text else None
        if value is not None and token.dynamic:
            found.why = "`alias` defines a command computed when it runs"
        elif value:
            found.lines.append(value)
    return found


def _source(name: str, args: list[Token]) -> Runs | None:
    if not args:
        return None
    if args[0].dynamic:
        return Runs(why=f"`{name}` runs a file that is computed when it runs")
    return Runs(why=f"`{name}` reads commands from its input") if INPUT.match(args[0].text) else None


def _joined(name: str, args: list[Token]) -> Runs | None:
    """`eval WORDS` and `watch [options] WORDS`: the words joined are a command line."""
    if name == "watch":
        args = _operands(args, values=("-n", "-d", "--interval", "--differences"))
        if not args:
            return None
    if any(t.dynamic and ("$" in t.text or "`" in t.text) for t in args):
        return Runs(why=f"`{name}` runs text that is computed when it runs")
    return Runs([" ".join(t.text for t in args)])


def _text(token: Token, name: str) -> Runs:
    if token.dynamic:
        return Runs(why=f"`{name}` runs text that is computed when it runs")
    return Runs([token.text])


def _shell(name: str, args: list[Token]) -> Runs:
    """A shell's argv past its name: options as the shell reads them, then the command
    string (with -c) or the script it runs."""
    i, command, stdin, found = 0, False, False, Runs()
    while i < len(args):
        word = args[i].text
        if args[i].dynamic and word[:1] in "-+":
            return Runs(why=f"`{name}` has an option computed when it runs")
        if word in ("--", "-"):
            i += 1
            break
        if word.startswith("--"):
            i, done = _long_option(name, args, i, found)
            if done is not None:
                return done
            continue
        if word[:1] not in "-+" or len(word) < 2:
            break
        letters = word[1:]
        command |= word[0] == "-" and "c" in letters
        stdin |= word[0] == "-" and "s" in letters
        values = [c for c in letters if c in "oO" or (name == "fish" and c == "C")]
        for n, letter in enumerate(values, start=1):
            if letter == "C" and i + n < len(args):  # fish -C: a command run first
                found.lines.append(args[i + n].text)
        i += 1 + len(values)
    operands = args[i:]
    if command:
        inner = _text(operands[0], name) if operands else Runs()
        return Runs(found.lines + inner.lines, inner.why)
    if stdin or not operands:
        found.why = _READS_INPUT
    elif operands[0].dynamic:
        found.why = f"`{name}` runs a file that is computed when it runs"
    elif INPUT.match(operands[0].text):
        found.why = f"`{name}` reads its commands from its input"
    return found


def _long_option(name: str, args: list[Token], i: int, found: Runs) -> tuple[int, Runs | None]:
    """A shell's `--option[=value]` at `i`: where the next option is, and what the shell
    runs when the option settles it (`--command`); an `--init-command` is added to `found`."""
    key, has_value, value = args[i].text.partition("=")
    if key in _SHELL_VALUES and not has_value:
        value, i = (args[i + 1].text if i + 1 < len(args) else ""), i + 1
        if key in ("--init-command", "--command") and i < len(args) and args[i].dynamic:
            return i + 1, Runs(why=f"`{name}` runs text that is computed when it runs")
    if key == "--command":
        return i + 1, Runs([value])
    if key == "--init-command":
        found.lines.append(value)
    return i + 1, None


def _su(name: str, args: list[Token]) -> Runs:
    """`su [-] [user] -c CMD` (options anywhere); without -c, a shell reading the input
    (`runuser -u USER CMD ...` runs CMD: the caller's words after the user)."""
    for i, token in enumerate(args):
        word = token.text
        if word.startswith("--command="):
            return Runs(why=f"`{name}` runs text that is computed when it runs") if token.dynamic \
                else Runs([word.split("=", 1)[1]])
        if (word == "--command" or re.fullmatch(r"-[A-Za-z]*c", word)) and i + 1 < len(args):
            return _text(args[i + 1], name)
        if word == "--":
            break
    if name == "runuser" and any(t.text in ("-u", "--user") for t in args):
        return Runs()
    return Runs(why=_READS_INPUT)


def _script(name: str, args: list[Token]) -> Runs:
    """script(1): `-c CMD`/`--command[=]CMD` runs CMD through a shell; without it, an
    interactive shell reading the input."""
    i = 0
    while i < len(args):
        word = args[i].text
        if word.startswith("--command"):
            if "=" in word:
                return Runs(why="`script` runs text that is computed when it runs") if args[i].dynamic \
                    else Runs([word.split("=", 1)[1]])
            return _text(args[i + 1], "script") if i + 1 < len(args) else Runs()
        if word.startswith("-") and not word.startswith("--"):
            for at, letter in enumerate(word[1:], start=2):
                if letter == "c":
                    rest = word[at:]
                    return Runs([rest]) if rest else (
                        _text(args[i + 1], "script") if i + 1 < len(args) else Runs())
                if letter in _SCRIPT_VALUES:
                    i += 0 if word[at:] else 1
                    break
        i += 1
    return Runs(why="`script` runs a shell that reads its commands from its input")


def _trap(name: str, args: list[Token]) -> Runs:
    """`trap [--] ACTION SIGNAL...`: ACTION runs when the signal (or EXIT) comes."""
    while args and args[0].text in ("-p", "-l", "-P"):
        args = args[1:]
    if args and args[0].text == "--":
        args = args[1:]
    if len(args) < 2 or args[0].text in ("-", ""):
        return Runs()
    return _text(args[0], "trap")


def _operands(argv: list[Token], values: tuple[str, ...]) -> list[Token]:
    i = 0
    while i < len(argv) and argv[i].text[:1] in "-+" and argv[i].text not in ("-", "--"):
        i += 2 if argv[i].text in values else 1
    return argv[i + (i < len(argv) and argv[i].text == "--"):]


def _ssh(name: str, args: list[Token]) -> Runs | None:
    """`ssh [options] HOST CMD...`: the words after the host are one command line (run
    there, maybe this very machine); without them, a login shell - not read here."""
    i = 0
    while i < len(args) and args[i].text.startswith("-") and args[i].text != "--":
        word = args[i].text
        i += 2 if len(word) == 2 and word[1] in _SSH_VALUES else 1
    i += i < len(args) and args[i].text == "--"
    rest = args[i + 1:]
    return _joined(name, rest) if rest else None


def _later(name: str, args: list[Token]) -> Runs | None:
    """`at`, `batch`, `crontab`: commands read from the input or a file, run later (their
    listing and removal options run nothing)."""
    if any(t.text in ("-l", "-r", "-c", "-e", "-d") for t in args[:1]) and name != "batch":
        return None
    return Runs(why=f"`{name}` runs commands it reads (its input or a file) later")


def _make(name: str, args: list[Token]) -> Runs | None:
    """`make -f /dev/stdin`, `make --eval=...`: recipes hermes does not read."""
    for k, token in enumerate(args):
        word = token.text
        option, _, value = word.partition("=")
        if word in ("-f", "--file", "--makefile") and k + 1 < len(args):
            option, value = word, args[k + 1].text
        elif word.startswith("-f") and not word.startswith("--"):
            option, value = "-f", word[2:]
        if word.startswith(("--eval", "-E")) or option in ("-f", "--file", "--makefile") and INPUT.match(value):
            return Runs(why=f"`{name}` runs recipes from its input or its command line")
    return None


_SSH_VALUES = "BbcDEeFIiJLlmOoPpQRSWw"  # ssh's options that take a value
_READERS = {"ssh": _ssh, "script": _script, "trap": _trap, "alias": _alias, "source": _source, ".": _source,
            "eval": _joined, "watch": _joined, "at": _later, "batch": _later, "crontab": _later,
            "make": _make, "gmake": _make}
