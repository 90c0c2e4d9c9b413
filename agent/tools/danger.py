"""Recognise shell commands that can destroy a system or run code from the internet.

`dangerous_reason(command)` returns a short reason, or None for an ordinary command.
It aims at few false positives: `rm -rf build/` or `rm -rf ./node_modules` pass, while
`rm -rf /`, `rm -rf ~`, `rm -rf *`, `rm -rf ..` do not. It is a guard against accidents
by the model, not a sandbox: a determined command can always hide its intent.

Checked: recursive rm/chmod/chown/find -delete on broad paths (/, top-level folders,
~, $HOME, ., .., *), mkfs/wipefs, dd or redirection onto disk devices, curl/wget piped
into a shell or interpreter, fork bombs, writes into system directories, shred or
truncate of system files or disks, shutdown/reboot,
`kill -1`, force-pushes to main/master, and the same inside `bash -c '...'`.
Every simple command agent/permissions/shell.py finds (backticks, `<(...)`, `find -exec`,
`watch`, ...) is checked too. Before matching, agent/tools/danger_words.py expands ~/$HOME/simple variables, normalises
paths and peels wrappers (timeout, nice, xargs, busybox, su -c ...); text piped into a
shell or interpreter, inline interpreter code and computed command names need approval.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable

from agent.permissions.shell import analyse
from agent.tools.danger_words import expand, inline_reason, su_command, unwrap

_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish"}
_SHELL_RE = r"(?:ba|z|da|k|fi)?sh"
# A shell reading stdin, or an interpreter given no script/-m/-c (so it runs stdin).
_INTERPRETERS = rf"(?:{_SHELL_RE}\b|(?:python[0-9.]*|perl|ruby|node)\s*(?:-\s*)?(?:$|[;&|)]))"
_FETCH = r"(?:curl|wget|fetch)"
_DISK = r"/dev/(?:sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk\d|disk\d)"
_PREFIXES = {"sudo", "doas", "env", "command", "builtin", "exec", "nohup", "time", "nice",
             "then", "do", "else", "!", "{", "if", "while", "until"}
_PREFIX_WITH_VALUE = {"-u", "-g", "-n", "-C", "-p"}
_SYSTEM_DIRS = re.compile(r"^[\"']?/(?:etc|boot|usr|bin|sbin|lib|lib32|lib64)(?:/|$)")
_SYSTEM = "writes into a system directory (/etc, /boot, /usr, /bin, /sbin, /lib)"

_RAW_CHECKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"), "fork bomb"),
    (re.compile(r"\b(\w+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}\s*;\s*\1\b"), "fork bomb"),
    (re.compile(rf"\b{_FETCH}\b[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?{_INTERPRETERS}"),
     "pipes a download straight into a shell/interpreter"),
    (re.compile(rf"\b(?:{_SHELL_RE}|python[0-9.]*|perl|ruby|node)\s+(?:-\S+\s+)*<\(\s*{_FETCH}\b"),
     "runs a downloaded script via process substitution"),
    (re.compile(rf"(?:\b{_SHELL_RE}\s+-\w*c|\beval)\s+[\"']?\$\(\s*{_FETCH}\b"),
     "runs a downloaded script via command substitution"),
    (re.compile(rf">\s*{_DISK}"), "writes directly onto a disk device"),
    (re.compile(r">>?\s*[\"']?/(?:etc|boot|usr|bin|sbin|lib|lib32|lib64)(?:/|\s|$)"), _SYSTEM),
]


def dangerous_reason(command: str, _depth: int = 0) -> str | None:
    """Why `command` needs the user's approval, or None when it looks ordinary."""
    for pattern, reason in _RAW_CHECKS:
        if pattern.search(command):
            return reason
    inline = inline_reason(command)
    if inline:
        return inline
    for argv in simple_commands(command):
        found = _check_argv(argv, _depth)
        if found:
            return found
    for simple in analyse(command).commands:  # what the rules' parser sees: backticks,
        found = _check_argv(list(simple.words), _depth)  # <(...), find -exec, watch ...
        if found:
            return found
    return None


def simple_commands(command: str) -> list[list[str]]:
    """Split a command line into simple commands (argv lists); [] if it cannot be parsed."""
    text = command.replace("\\\n", " ").replace("\n", " ; ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: bash would refuse it too
        return []
    commands: list[list[str]] = [[]]
    skip_next = False
    for token in tokens:
        if skip_next:
            skip_next = False
        elif token and set(token) <= set("<>&") and ("<" in token or ">" in token):
            skip_next = True  # a redirection operator: its target is not an argument
        elif token and set(token) <= set("();|&"):
            commands.append([])
        else:
            commands[-1].append(token)
    variables: dict[str, str] = {}
    out = []
    for argv in commands:
        argv = expand(argv, variables) if argv else argv
        for _ in range(4):  # wrappers inside wrappers: sudo timeout 5 nice rm ...
            argv = unwrap(_unwrap(argv))
        if argv:
            out.append(argv)
    return out


def _unwrap(argv: list[str]) -> list[str]:
    """Drop `sudo -u x`, `env X=1`, `nohup`... so argv[0] is the real program."""
    i, after_prefix = 0, False
    while i < len(argv):
        word = argv[i]
        if word in _PREFIXES or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", word):
            i, after_prefix = i + 1, True
        elif after_prefix and word.startswith("-"):
            i += 2 if word in _PREFIX_WITH_VALUE else 1
        else:
            break
    return argv[i:]


def _check_argv(argv: list[str], depth: int) -> str | None:
    if not argv:
        return None
    program = os.path.basename(argv[0])
    args = argv[1:]
    if program.startswith("mkfs") or program == "wipefs":
        return f"formats or wipes a filesystem ({program})"
    if program in _SHELLS:
        return _shell_c(args, depth)
    if program == "su":
        inner = su_command(argv)
        return dangerous_reason(inner, depth + 1) if inner and depth < 3 else None
    check = _CHECKS.get(program)
    return check(args) if check else None


def _broad(target: str, *, relative: bool = True) -> bool:
    """Is `target` a path whose recursive deletion would be a disaster?

    With `relative=False` only system-wide paths count (/, /usr, ~, $HOME), not ., .., *.
    """
    t = target.strip()
    if not t:
        return False
    absolute = t.startswith("/")
    t = re.sub(r"(?:/\*|/\.\*|/)+$", "", t)
    home = os.environ.get("HOME", "").rstrip("/")
    if home and (t == home or t.startswith("/") and os.path.normpath(t) == home):
        return True
    if t == "":
        return absolute  # "/", "//", "/*"
    if t in {"~", "$HOME", "${HOME}"} or re.fullmatch(r"/[^/]+", t):
        return True  # home, or a top-level folder: /usr, /etc, /home ...
    if not relative:
        return False
    return t in {"*", ".*"} or all(part in (".", "..") for part in t.split("/"))


def _split_flags(args: list[str]) -> tuple[list[str], list[str]]:
    flags, operands, ended = [], [], False
    for arg in args:
        if arg == "--" and not ended:
            ended = True
        elif arg.startswith("-") and len(arg) > 1 and not ended:
            flags.append(arg)
        else:
            operands.append(arg)
    return flags, operands


def _recursive(flags: list[str]) -> bool:
    return any(
        f == "--recursive" or (not f.startswith("--") and ("r" in f or "R" in f)) for f in flags
    )


def _rm(args: list[str]) -> str | None:
    flags, targets = _split_flags(args)
    if _recursive(flags):
        broad = next((t for t in targets if _broad(t)), None)
        if broad is not None:
            return f"recursive delete of a broad path ({broad!r})"
    return None


def _perm(args: list[str]) -> str | None:
    flags, operands = _split_flags(args)
    if "-R" in flags or "--recursive" in flags or any("R" in f and not f.startswith("--") for f in flags):
        broad = next((t for t in operands[1:] if _broad(t, relative=False)), None)
        if broad is not None:
            return f"recursive permission/ownership change on a broad path ({broad!r})"
    return None


def _find(args: list[str]) -> str | None:
    if args and _broad(args[0], relative=False) and ("-delete" in args or ("-exec" in args and "rm" in args)):
        return f"find deleting files under a broad path ({args[0]!r})"
    return None


def _dd(args: list[str]) -> str | None:
    for arg in args:
        if arg.startswith("of=/dev/") and not re.match(r"of=/dev/(?:null|zero|stdout|stderr)$", arg):
            return f"dd writing onto a device ({arg[3:]})"
    return None


def _power(_args: list[str]) -> str | None:
    return "shuts down or reboots the machine"


def _init(args: list[str]) -> str | None:
    return "shuts down or reboots the machine" if args[:1] in (["0"], ["6"]) else None


def _systemctl(args: list[str]) -> str | None:
    actions = {"poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"}
    return "shuts down or reboots the machine" if actions & set(args) else None


def _kill(args: list[str]) -> str | None:
    return "signals every process you own (kill -1)" if len(args) >= 2 and args[-1] == "-1" else None


def _git(args: list[str]) -> str | None:
    if "push" not in args:
        return None
    flags, operands = _split_flags(args[args.index("push") + 1 :])
    forced = any(
        f in ("--force", "--force-with-lease") or f.startswith("--force-with-lease=")
        or (not f.startswith("--") and "f" in f)
        for f in flags
    ) or any(op.startswith("+") for op in operands)
    if forced and "--mirror" in flags:
        return "force-mirror push overwrites every branch of the remote"
    protected = any(re.fullmatch(r"\+?(?:[^:]*:)?(?:refs/heads/)?(?:main|master)", op) for op in operands)
    return "force-push to main/master rewrites shared history" if forced and protected else None


def _writes_system(args: list[str]) -> str | None:
    _, operands = _split_flags(args)
    return _SYSTEM if operands and _SYSTEM_DIRS.match(operands[-1]) else None


def _mv(args: list[str]) -> str | None:
    _, operands = _split_flags(args)
    broad = next((t for t in operands[:-1] if _broad(t, relative=False)), None)
    return f"moves a broad path ({broad!r})" if broad else _writes_system(args)


def _rsync(args: list[str]) -> str | None:
    flags, operands = _split_flags(args)
    deletes = any(f.startswith("--delete") or f.startswith("--remove") for f in flags)
    if deletes and operands and _broad(operands[-1], relative=False):
        return f"rsync deleting under a broad path ({operands[-1]!r})"
    return None


def _system_or_disk(args: list[str]) -> str | None:
    """tee/shred/truncate: fine on the user's files, not on system files or disks."""
    _, operands = _split_flags(args)
    if any(_SYSTEM_DIRS.match(op) for op in operands):
        return _SYSTEM
    if any(re.fullmatch(_DISK + r"\d*", op) for op in operands):
        return "writes directly onto a disk device"
    return None


def _sed(args: list[str]) -> str | None:
    in_place = any(a.startswith("-i") or a.startswith("--in-place") for a in args)
    return "edits system files in place" if in_place and any(_SYSTEM_DIRS.match(a) for a in args) else None


def _shell_c(args: list[str], depth: int) -> str | None:
    for i, arg in enumerate(args[:-1]):
        if re.fullmatch(r"-[a-z]*c[a-z]*", arg) and depth < 3:
            return dangerous_reason(args[i + 1], depth + 1)
    return None


_CHECKS: dict[str, Callable[[list[str]], str | None]] = {
    "rm": _rm, "chmod": _perm, "chown": _perm, "chgrp": _perm, "find": _find, "dd": _dd,
    "shutdown": _power, "reboot": _power, "halt": _power, "poweroff": _power,
    "init": _init, "telinit": _init, "systemctl": _systemctl, "kill": _kill, "git": _git,
    "cp": _writes_system, "mv": _mv, "rsync": _rsync, "install": _writes_system, "ln": _writes_system,
    "tee": _system_or_disk, "sed": _sed, "shred": _system_or_disk, "truncate": _system_or_disk,
}
