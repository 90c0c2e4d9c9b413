"""Is a command plainly read-only? Used only when no sandbox is active: then anything
else needs approval. Deliberately narrow: a simple pipeline of known readers, no
redirection, no substitution, no options that write or execute."""

from __future__ import annotations

import re
import shlex

READERS = frozenset({
    "ls", "cat", "head", "tail", "wc", "pwd", "echo", "printf", "grep", "egrep", "fgrep", "rg",
    "which", "type", "stat", "file", "du", "df", "tree", "less", "more", "sort", "uniq", "cut",
    "tr", "date", "whoami", "id", "uname", "hostname", "basename", "dirname", "realpath",
    "readlink", "diff", "cmp", "md5sum", "sha256sum", "sha1sum", "nl", "column", "true", "false",
})
GIT_READERS = frozenset({"status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame"})
FIND_WRITES = frozenset({"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf",
                         "-fls", "-fprint0"})
UNSAFE = re.compile(r"[<>`;&]|\$\(|\n")


def plainly_read_only(command: str) -> bool:
    """True only for a simple pipeline of known readers with no redirection."""
    if UNSAFE.search(command):
        return False
    for part in command.split("|"):
        try:
            argv = shlex.split(part)
        except ValueError:
            return False
        if not argv or not _reader(argv):
            return False
    return True


def _reader(argv: list[str]) -> bool:
    program, args = argv[0], argv[1:]
    if program == "git":
        return bool(args) and args[0] in GIT_READERS and "--output" not in " ".join(args)
    if program == "find":
        return not FIND_WRITES & set(args)
    if program == "sort":
        return not any(a.startswith("-o") or a.startswith("--output") for a in args)
    return program in READERS
