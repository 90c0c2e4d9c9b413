"""Options whose value is a command line a program runs, for agent/permissions/shell.py:
`git rebase -x CMD`, `git difftool --extcmd CMD`, `git filter-branch --tree-filter CMD`,
`git ls-remote --upload-pack CMD`, `git bisect run CMD...`, `git submodule foreach CMD`,
`tar --to-command CMD` / `-I CMD` / `--checkpoint-action=exec=CMD`, `rsync -e CMD`,
`zip -TT CMD`, `less +!CMD`, `ssh -o ProxyCommand=CMD`. The program itself is recorded
as written (a `terminal(git rebase*)` rule still sees it); what the option runs is read
as one more command line, so a deny on `git push` covers `git rebase -x 'git push'`. A
value computed when the line runs cannot be read: the line fails closed.
"""

from __future__ import annotations

from agent.permissions.shell_lex import Token
from agent.permissions.shell_runs import Runs

_GIT = {  # git subcommand -> its options whose value is a command line
    "rebase": ("-x", "--exec"), "difftool": ("-x", "--extcmd"),
    "filter-branch": ("--setup", "--tree-filter", "--index-filter", "--msg-filter",
                      "--env-filter", "--commit-filter", "--parent-filter", "--tag-name-filter"),
    "ls-remote": ("-u", "--upload-pack"), "clone": ("-u", "--upload-pack"),
    "fetch": ("--upload-pack",), "pull": ("--upload-pack",),
    "push": ("--receive-pack", "--exec"), "send-pack": ("--receive-pack", "--exec"),
    "archive": ("--exec",),
}
_GIT_JOINED = {"bisect": "run", "submodule": "foreach"}  # `git bisect run CMD ARGS...`
_GIT_VALUES = ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env")
_PROGRAMS = {
    "tar": ("-I", "-F", "--use-compress-program", "--to-command", "--info-script",
            "--new-volume-script", "--checkpoint-action"),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "zip": ("-TT", "--unzip-command"),
}
_SSH_RUNS = ("proxycommand", "localcommand", "knownhostscommand")


def option_lines(name: str, args: list[Token]) -> Runs | None:
    """What `name ARGS` runs through an option's value (None: no such option given)."""
    if name == "git":
        return _git(args)
    if name in _PROGRAMS:
        return _values(name, args, _PROGRAMS[name])
    if name == "ssh":
        return _ssh(args)
    if name == "less":
        return _less(args)
    return None


def _git(args: list[Token]) -> Runs | None:
    i = 0
    while i < len(args) and args[i].text.startswith("-"):
        i += 2 if args[i].text in _GIT_VALUES else 1
    if i >= len(args):
        return None
    sub, rest = args[i].text, args[i + 1:]
    if sub in _GIT_JOINED:
        at = next((k for k, t in enumerate(rest) if t.text == _GIT_JOINED[sub]), None)
        if at is None or at + 1 >= len(rest):
            return None
        words = rest[at + 1:]
        if any(t.dynamic for t in words):
            return Runs(why=f"`git {sub} {_GIT_JOINED[sub]}` runs a command computed when it runs")
        return Runs([" ".join(t.text for t in words)])
    return _values(f"git {sub}", rest, _GIT.get(sub, ()))


def _values(name: str, args: list[Token], options: tuple[str, ...]) -> Runs | None:
    found = Runs()
    for k, token in enumerate(args):
        word = token.text
        if word == "--":
            break
        for option in options:
            if word == option:
                value = args[k + 1] if k + 1 < len(args) else None
                text = value.text if value is not None else ""
                dynamic = value is not None and value.dynamic
            elif word.startswith(option + "="):  # --to-command=CMD
                text, dynamic = word.split("=", 1)[1], token.dynamic
            elif not option.startswith("--") and word.startswith(option) and len(word) > len(option):
                text, dynamic = word[len(option):], token.dynamic  # -xCMD, -essh
            elif len(option) == 2 and _clustered(word, option[1]):  # rsync -avze CMD
                rest = word.split(option[1], 1)[1]
                value = args[k + 1] if not rest and k + 1 < len(args) else None
                text = rest or (value.text if value is not None else "")
                dynamic = token.dynamic if rest else (value is not None and value.dynamic)
            else:
                continue
            if option == "--checkpoint-action":
                if not text.startswith("exec="):
                    break
                text = text[len("exec="):]
            if dynamic:
                found.why = f"`{name} {option}` runs a command computed when it runs"
            elif text:
                found.lines.append(text)
            break
    return found if found.lines or found.why else None


def _clustered(word: str, letter: str) -> bool:
    """`-avze`: short options run together, `letter` among them (not `--long`)."""
    return word.startswith("-") and not word.startswith("--") and letter in word[2:]


def _ssh(args: list[Token]) -> Runs | None:
    found = Runs()
    for k, token in enumerate(args):
        word = token.text
        if word == "-o" and k + 1 < len(args):
            value, dynamic = args[k + 1].text, args[k + 1].dynamic
        elif word.startswith("-o") and len(word) > 2:
            value, dynamic = word[2:], token.dynamic
        else:
            continue
        key, _, command = value.replace("=", " ", 1).partition(" ")
        if key.lower() in _SSH_RUNS:
            if dynamic:
                found.why = f"`ssh -o {key}` runs a command computed when it runs"
            elif command.strip():
                found.lines.append(command.strip())
    return found if found.lines or found.why else None


def _less(args: list[Token]) -> Runs | None:
    """`less +!CMD` (a command given as the first command less runs)."""
    for token in args:
        if token.text.startswith("+") and "!" in token.text:
            if token.dynamic:
                return Runs(why="`less +` runs a command computed when it runs")
            return Runs([token.text.split("!", 1)[1]])
    return None
