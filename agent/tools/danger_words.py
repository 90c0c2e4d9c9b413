"""Harder-to-walk-around input for the danger checks (agent/tools/danger.py).

- `expand(argv, variables)`: `~`, $HOME, ${HOME}, ${HOME:?...} and simple `x=/` assignments
  made earlier in the same command line are expanded, and absolute paths normalised
  (`/tmp/x/../..` is `/`).
- `unwrap(argv)`: wrappers are peeled off so argv[0] is the real program: sudo, doas, env,
  timeout, nice, ionice, nohup, stdbuf, setsid, chrt, command, exec, busybox, xargs (whose
  targets then come from stdin: unknown, so treated as broad).
- `inline_reason(command)`: text piped into a shell or interpreter, interpreter `-c`/`-e`
  code, a command name computed at run time (`$(echo rm)`, `$x`), `eval`, `base64 -d`
  into anything, and `su -c`/`sh -c` strings (checked recursively by the caller).
"""

from __future__ import annotations

import os
import re

HOME_WORDS = re.compile(r"^(?:~|\$HOME|\$\{HOME(?::?[-?=+][^}]*)?\})(?=/|$)")
VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?=+][^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))")
ASSIGN = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
SIMPLE_PREFIX = {"sudo", "doas", "nohup", "command", "builtin", "exec", "time", "setsid", "busybox"}
OPTION_PREFIX = {"env", "nice", "ionice", "stdbuf", "chrt", "timeout", "xargs"}
VALUE_OPTIONS = {"-u", "-g", "-n", "-C", "-p", "-c", "-s", "-k", "-I", "-L", "-P", "-d", "-E",
                 "-a", "-o", "-e", "-i", "--signal", "--kill-after"}
SHELL = r"(?:ba|z|da|k|fi)?sh|busybox\s+sh"
INTERP = r"python[0-9.]*|perl|ruby|node|php|lua|Rscript|awk|gawk|osascript|pwsh"
_PIPE_INTO = re.compile(rf"\|\s*(?:sudo\s+|env\s+|exec\s+)*(?:/\S*/)?(?:{SHELL}|{INTERP})\b(?!\s+-m\b)")
_INLINE = re.compile(rf"(?:^|[\s;&|(])(?:/\S*/)?(?:{INTERP})\s+(?:-\S+\s+)*-[a-zA-Z]*[cerE]\b")
_COMPUTED = re.compile(r"(?:^|[;&|(]\s*|\b(?:then|do)\s+)(?:\$\(|`|\$\{?[A-Za-z_]|['\"\\]+[a-z])")
_FETCH = re.compile(r"\b(?:curl|wget|fetch)\b")
_RUN_FILE = re.compile(rf"(?:^|[;&|]\s*)(?:(?:/\S*/)?(?:{SHELL}|{INTERP}|source|\.)\s+[^-\s]|\./)")
_DOTFILE = re.compile(r">>?\s*(?:~|\$HOME|\$\{HOME[^}]*\})/\.[A-Za-z]")


def inline_reason(command: str) -> str | None:
    if _PIPE_INTO.search(command):
        return "pipes text into a shell or interpreter"
    if _INLINE.search(command):
        return "runs inline interpreter code (-c/-e)"
    if re.search(r"(?:^|[;&|]\s*)eval\b", command):
        return "runs text as a command (eval)"
    if _COMPUTED.search(command.strip()):
        return "the command name is computed or quoted at run time"
    if _FETCH.search(command) and _RUN_FILE.search(command):
        return "downloads a script and runs it"
    if _DOTFILE.search(command):
        return "overwrites a dotfile in your home (shell start-up, credentials)"
    return None


def expand(argv: list[str], variables: dict[str, str]) -> list[str]:
    """Expand home words and known variables; normalise absolute paths. Records `x=...`
    assignments (a word list of only assignments) into `variables`."""
    home = os.environ.get("HOME") or "~"
    if argv and all(ASSIGN.match(w) for w in argv):
        for word in argv:
            name, value = ASSIGN.match(word).groups()  # type: ignore[union-attr]
            variables[name] = value
        return []
    out = []
    for word in argv:
        word = HOME_WORDS.sub(home, word)
        word = VAR.sub(lambda m: variables.get(m.group(1) or m.group(2), m.group(0)), word)
        word = HOME_WORDS.sub(home, word)
        if word.startswith("/") and ".." in word.split("/"):
            word = os.path.normpath(word)
        out.append(word)
    return out


def unwrap(argv: list[str]) -> list[str]:
    """Peel wrappers (see the module docstring); xargs adds an unknown broad target."""
    i, stdin_targets = 0, False
    while i < len(argv):
        word = os.path.basename(argv[i])
        if word in SIMPLE_PREFIX:
            i += 1
        elif word in OPTION_PREFIX or ASSIGN.match(argv[i]):
            stdin_targets |= word == "xargs"
            i += 1
            while i < len(argv) and (argv[i].startswith("-") or ASSIGN.match(argv[i])):
                i += 2 if argv[i] in VALUE_OPTIONS else 1
            if word == "timeout" and i < len(argv) and re.fullmatch(r"[\d.]+[smhd]?", argv[i]):
                i += 1
        else:
            break
    rest = argv[i:]
    return [*rest, "/"] if stdin_targets and rest else rest


def su_command(argv: list[str]) -> str | None:
    """The command string of `su [user] -c CMD` / `su --command=CMD`."""
    for j, word in enumerate(argv[1:], start=1):
        if word in ("-c", "--command") and j + 1 < len(argv):
            return argv[j + 1]
        if word.startswith("--command="):
            return word.split("=", 1)[1]
    return None
