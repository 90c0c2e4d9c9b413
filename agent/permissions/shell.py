"""What a command line runs, for the `terminal(...)` permission rules: `analyse(line)`
is its simple commands, each an argv with wrappers peeled, or why it cannot be told.

A line is split as bash splits it (agent/permissions/shell_lex.py): `;`, `&&`, `||`,
`|`, `&`, newlines, `( ... )`, `{ ...; }`, `if/while/for/case` bodies; the commands of
`$(...)`, backticks and `<(...)` count as commands of the line, as do the texts that
shells (any options), `su -c`, `script -c`, `trap`, `alias`, `eval`, `env -S`, `watch`
and `find -exec` run (agent/permissions/shell_runs.py), read recursively. Wrappers are
peeled so the rule sees the real program: `sudo`, `doas`, `env`, `command`, `builtin`,
`exec`, `nohup`, `time` (and the keyword's `-p`), `nice`, `ionice`, `timeout` (any
duration), `stdbuf`, `setsid`, `chrt`, `taskset`, `flock`, `busybox`, `strace`,
`ltrace`, `chroot`, `xargs` (what its input fills in counts as computed words), and
`A=1` assignments; a program by any path is its base name, and `git-push` is git's push.
Past that, hermes cannot know which programs run their arguments (`uv run`, `docker
exec`, `ssh`, ...): `Simple.tails` lets a deny/ask rule match any run of a command's
words that starts at a program's name. A simple command that
was peeled of anything that can change what the program does (sudo/doas/su, `env`,
assignments such as `PAGER=...`, git's `-c`/`--git-dir`/...) is `plain=False`: an allow
rule must then match it as written.

`unclear` says why a line cannot be analysed with confidence - it fails closed: `eval`
of computed text, a command name that is a variable, substitution, glob or brace list,
a shell, `source` or `script` reading commands from its input (`... | sh`, `bash <<<`,
`bash /dev/stdin`, `bash <(...)`, `sudo -s`), a variable the shell runs later (PS4,
PROMPT_COMMAND, BASH_ENV, ...), arithmetic on a value that may hide a command
(agent/permissions/shell_arith.py), unbalanced quotes. The rules treat it so: no allow
applies, and every deny/ask on the terminal does (agent/permissions/rules.py).
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from functools import lru_cache

from agent.permissions.shell_arith import risk
from agent.permissions.shell_lex import Lexed, Token, Unclear, lex
from agent.permissions.shell_options import option_lines
from agent.permissions.shell_runs import program, runner, runs
from agent.sandbox.gitconfig import DANGEROUS_KEYS

# variables whose values the shell runs or expands later (prompts, start-up files, aliases),
# or that git and other programs run (a pager, an editor, an ssh command, config given in env)
_EVALUATED = re.compile(r"^(?:PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV|BASH_ALIASES|BASH_CMDS|"
                        r"BASH_FUNC_\w+|SHELLOPTS|BASHOPTS|PAGER|EDITOR|VISUAL|SSH_ASKPASS|"
                        r"GIT_(?:PAGER|EDITOR|SEQUENCE_EDITOR|SSH|SSH_COMMAND|ASKPASS|EXTERNAL_DIFF|"
                        r"EXEC_PATH|PROXY_COMMAND|CONFIG\w*))(?:\[[^]]*\])?\+?=")
_INTERPRETER = re.compile(r"^(?:python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby|node|nodejs|deno|bun|php[\d.]*|"
                          r"lua[\d.]*|luajit|[gmn]?awk|busybox|tclsh[\d.]*|expect|Rscript|osascript|"
                          r"sed|gsed|make|gmake|sg|parallel|tmux|screen|gdb|n?vim?|view|ex|emacs|"
                          r"nix-shell|at|batch)$")  # their code (or the commands they run) is not read here
_BUILTINS = frozenset({"builtin", "command", "exec"})  # not programs another can run
_SPAWNS_SHELL = frozenset({"sudo", "doas", "chroot"})  # with no command: a shell on the input
_DECLARE = frozenset({"export", "declare", "typeset", "local", "readonly"})
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?\+?=")
_START = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while",
                    "until", "esac", "time", "coproc"})
_HARMLESS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "-"})
# wrapper -> (its options that take a value, whether peeling it keeps the program's meaning)
_WRAPPERS: dict[str, tuple[frozenset[str], bool]] = {
    "command": (frozenset(), True), "builtin": (frozenset(), True), "exec": (frozenset({"-a"}), True),
    "nohup": (frozenset(), True), "time": (frozenset({"-f", "-o", "--format", "--output"}), True),
    "nice": (frozenset({"-n", "--adjustment"}), True),
    "ionice": (frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid",
                          "--pgid", "--uid"}), True),
    "setsid": (frozenset(), True),
    "stdbuf": (frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}), True),
    "timeout": (frozenset({"-s", "-k", "--signal", "--kill-after"}), True),
    "strace": (frozenset({"-e", "-o", "-p", "-s", "-u", "-E", "-P", "-I", "-b", "-a", "-X", "-O",
                          "-S", "-U", "--output", "--trace", "--signal", "--user", "--env"}), False),
    "ltrace": (frozenset({"-e", "-o", "-p", "-s", "-u", "-a", "-n", "-l", "-x", "-L", "-D"}), False),
    "chroot": (frozenset({"--userspec", "--groups"}), False),
    "xargs": (frozenset({"-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s",
                         "--arg-file", "--delimiter", "--max-args", "--max-procs"}), True),
    "sudo": (frozenset({"-u", "-g", "-C", "-p", "-h", "-r", "-t", "-U", "-D", "-T"}), False),
    "doas": (frozenset({"-u", "-C"}), False), "env": (frozenset({"-u", "-C", "--unset", "--chdir"}), False),
    "chrt": (frozenset(), False), "taskset": (frozenset(), False), "unbuffer": (frozenset(), True),
    "busybox": (frozenset(), True),
    "flock": (frozenset({"-w", "--wait", "--timeout", "-E", "--conflict-exit-code"}), True),
}
# git's global options before the subcommand, and whether they take a value
GIT_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                       "--super-prefix", "--list-cmds", "--attr-source"})
GIT_RISKY = ("-c", "--config-env", "--exec-path", "--git-dir", "--work-tree")


@dataclass(frozen=True)
class Simple:
    """One simple command: `words` with wrappers peeled; `written` as it stands."""

    words: tuple[str, ...]
    dynamic: tuple[bool, ...]  # per word: computed when it runs
    written: tuple[str, ...]
    plain: bool  # nothing peeled that can change what the program does
    writes: bool = False  # redirects its output into a file
    tail: bool = False  # what a later word may run (`uv run bash -c ...`): deny/ask only

    def git_subcommand(self) -> int:
        """Where git's subcommand is, past its global options (0: not git, or none)."""
        if not self.words or os.path.basename(self.words[0]) != "git":
            return 0
        i = 1
        while i < len(self.words) and self.words[i].startswith("-"):
            i += 2 if self.words[i] in GIT_VALUE else 1
        return i if i > 1 else 0

    def forms(self, *, strict: bool) -> list[tuple[tuple[str, ...], tuple[bool, ...]]]:
        """The argvs a rule is matched against, each with its words' `dynamic` flags:
        as written, peeled, and git without its global options. `strict` (for an allow):
        only forms whose peeling cannot change what runs. (Worked out once per command.)"""
        key = "_strict" if strict else "_loose"
        found = self.__dict__.get(key)  # kept beside the fields (cached_property locks)
        if found is None:
            found = self.__dict__[key] = self._forms(strict=strict)
        return found

    def _forms(self, *, strict: bool) -> list[tuple[tuple[str, ...], tuple[bool, ...]]]:
        if strict and self.writes:
            return []
        found = [(self.written, tuple(False for _ in self.written))]
        at = self.git_subcommand()
        risky = any(w.split("=", 1)[0] in GIT_RISKY for w in self.words[1:at])
        if self.plain or not strict:
            found.append((self.words, self.dynamic))
        if at and (not strict or self.plain and not risky):
            found.append((("git", *self.words[at:]), (False, *self.dynamic[at:])))
        name = program(self.words[0])
        if not strict and name != self.words[0]:  # `/usr/bin/git push` is `git push` to a deny
            found.append(((name, *self.words[1:]), self.dynamic))
        if not strict and name.startswith("git-") and len(name) > 4:  # git-push: git's push
            found.append((("git", name[4:], *self.words[1:]), (False, *self.dynamic)))
        return found

    def interpreted(self) -> bool:
        """Is it an interpreter given code on its command line (python, perl, awk, ...)?"""
        return _INTERPRETER.match(program(self.words[0])) is not None and len(self.words) > 1

    def tails(self, head: str = "") -> list[Simple]:
        """The commands its later words may be (`strace -f git push`, `uv run git push`,
        `docker exec c git push`): hermes cannot tell whether a program runs its arguments,
        so a deny/ask rule matches any run of words that starts at a program's name
        (`head`: only those starting at that program, or at one of its `head-x` forms)."""
        return [Simple(self.words[k:], self.dynamic[k:], self.words[k:], False)
                for k in range(1, len(self.words)) if not self.dynamic[k] and self.words[k]
                and (not head or _named(self.words[k], head))]


def _named(word: str, head: str) -> bool:
    name = program(word)
    return name == head or name.startswith(head + "-")


@dataclass(frozen=True)
class Analysis:
    commands: tuple[Simple, ...]
    unclear: str  # "" when understood, else why not


@lru_cache(maxsize=128)
def analyse(line: str) -> Analysis:
    """The simple commands `line` runs (parsed once per distinct line)."""
    out: list[Simple] = []
    try:
        why = _line(line, 0, True, out)
    except Unclear as exc:
        why = str(exc)
    return Analysis(tuple(out), why or risk(line))


def _line(text: str, depth: int, plain: bool, out: list[Simple]) -> str:
    if depth > 5:
        raise Unclear("commands nested too deeply")
    return _lexed(lex(text), depth, plain, out)


def _lexed(lexed: Lexed, depth: int, plain: bool, out: list[Simple]) -> str:
    why = ""
    for inner in lexed.inner:
        why = _lexed(inner, depth + 1, plain, out) or why
    for argv, writes in _split(lexed.tokens):
        why = _simple(argv, depth, plain, out, writes) or why
    return why


def _split(tokens: list[Token]) -> list[tuple[list[Token], bool]]:
    """Tokens -> the word lists of simple commands (redirections and keywords dropped),
    each with whether it redirects output into a file."""
    splitter = _Splitter()
    tokens = [t for n, t in enumerate(tokens) if not _coproc_name(tokens, n)]
    for n, token in enumerate(tokens):
        splitter.feed(token, tokens[n + 1] if n + 1 < len(tokens) else None)
    return [(c, w or splitter.every) for c, w in splitter.commands if c]


def _coproc_name(tokens: list[Token], n: int) -> bool:
    """`coproc NAME { ...; }` / `coproc NAME ( ... )`: NAME names the coprocess."""
    return 0 < n < len(tokens) - 1 and tokens[n - 1].text == "coproc" and \
        tokens[n + 1].text in ("{", "(") and not tokens[n].dynamic


class _Splitter:
    def __init__(self) -> None:
        self.commands: list[tuple[list[Token], bool]] = [([], False)]
        self.skip = self.to_separator = self.case_word = self.in_pattern = False
        self.skip_words = self.cases = 0
        self.every = False  # an output redirection of a group or of the shell: all write
        self.timed = False  # just after the `time` keyword, whose `-p` is its own

    def feed(self, token: Token, nxt: Token | None) -> None:
        current = self.commands[-1][0]
        timed, self.timed = self.timed, False
        if timed and not current and token.text in ("-p", "--"):
            self.timed = token.text == "-p"
        elif self.skip:
            self.skip = False
        elif token.kind == "redir":
            self.skip = True
            target = nxt.text if nxt is not None else ""
            if ">" in token.text and target not in _HARMLESS and not target.isdigit():
                self.commands[-1] = (current, True)
                if not current or [t.text for t in current] == ["exec"]:  # `( ... ) > f`, `exec > f`
                    self.every = True
        elif self.in_pattern:  # a case pattern `a|b)`, or its `esac`
            if token.text in (")", "esac"):
                self.in_pattern, self.cases = False, self.cases - (token.text == "esac")
        elif self.case_word:  # `case WORD in`
            if token.text == "in":
                self.case_word, self.in_pattern, self.cases = False, True, self.cases + 1
        elif token.kind == "op":
            self._operator(token, nxt, current)
        elif self.to_separator or self.skip_words:
            self.skip_words = max(0, self.skip_words - 1)
        elif current or token.dynamic or not self._keyword(token.text):
            current.append(token)

    def _operator(self, token: Token, nxt: Token | None, current: list[Token]) -> None:
        if token.text == "(" and len(current) <= 1 and nxt is not None and nxt.text == ")":
            current.clear()  # `name () { ...; }`: a function definition
            self.skip = True
            return
        self.in_pattern = self.cases > 0 and token.text in (";;", ";&", ";;&")
        self.commands.append(([], False))
        self.to_separator = False

    def _keyword(self, word: str) -> bool:
        """A reserved word at the start of a command (consumed), or False."""
        if word in _START:
            self.cases -= word == "esac"
            self.timed = word == "time"
        elif word in ("for", "select"):
            self.to_separator = True  # `for x in a b;`
        elif word in ("case", "function"):
            self.case_word, self.skip_words = word == "case", int(word == "function")
        else:
            return False
        return True


def _simple(argv: list[Token], depth: int, plain: bool, out: list[Simple],  # noqa: PLR0911
            writes: bool = False) -> str:
    """Peel wrappers off one simple command and record it (or what it runs)."""
    written = tuple(t.text for t in argv)
    while argv and _ASSIGN.match(argv[0].text):
        if _EVALUATED.match(argv[0].text):
            return f"`{argv[0].text.split('=')[0]}` is run or expanded later (by the shell or the program)"
        argv, plain = argv[1:], False
    if argv and argv[0].text in _DECLARE:  # `export GIT_PAGER=...`: the same, for later commands
        for token in argv[1:]:
            if _EVALUATED.match(token.text):
                return f"`{token.text.split('=')[0]}` is run or expanded later (by the shell or the program)"
    why = ""
    while argv and not argv[0].dynamic:
        name = program(argv[0].text)
        if name in _WRAPPERS:
            values, keeps = _WRAPPERS[name]
            replace = _xargs_replace(argv[1:]) if name == "xargs" else None
            options = argv[1:]
            argv, split = _options(argv[1:], values, name)
            plain = plain and keeps
            if split is not None:  # env -S 'cmd args'
                return _line(split + " " + " ".join(t.text for t in argv), depth + 1, False, out)
            argv = _positional(name, argv, replace)
            if not argv and name in _SPAWNS_SHELL and _shell_option(name, options):
                return f"`{name}` starts a shell that reads its commands from its input"
            continue
        found = runs(name, argv)
        if found is not None and found.lines:
            why = found.why
            for text in found.lines:
                why = _line(text, depth + 1, plain and name not in ("su", "runuser"), out) or why
            return why
        why = found.why if found is not None else ""
        break
    if not argv:
        return why
    if argv[0].dynamic:
        out.append(Simple(tuple(t.text for t in argv), tuple(t.dynamic for t in argv), written, False))
        return "the command name is computed when it runs"
    out.append(Simple(tuple(t.text for t in argv), tuple(t.dynamic for t in argv), written, plain, writes))
    return _inside(argv, depth, plain, out) or why


def _inside(argv: list[Token], depth: int, plain: bool, out: list[Simple]) -> str:
    """What the command just recorded runs through its arguments: `find -exec`, a git
    alias given inline, a shell or wrapper among its words (`uv run bash -c CMD`)."""
    recorded, why = out[-1], ""
    if _git_config_runs(recorded.words, recorded.git_subcommand()):
        why = "git is given a config key that runs something else (`alias.*`, `core.pager`, ...)"
    valued = option_lines(program(argv[0].text), argv[1:]) if depth < 5 else None
    if valued is not None:  # `git rebase -x CMD`, `tar --to-command CMD`, `ssh -o ProxyCommand`
        why = valued.why or why
        for text in valued.lines:
            why = _line(text, depth + 1, False, out) or why
    for sub in _find_exec(argv):
        why = _simple(sub, depth + 1, plain, out) or why
    for k in range(1, len(argv)):  # `uv run bash -c CMD`, `docker exec c sh -c CMD`
        name = program(argv[k].text)
        if not argv[k].dynamic and (runner(name) or name in _WRAPPERS and name not in _BUILTINS) \
                and depth < 5:
            found: list[Simple] = []
            tail_why = _simple(argv[k:], depth + 1, False, found)
            out.extend(dataclasses.replace(c, tail=True) for c in found)
            why = why or (tail_why if k + 1 < len(argv) else "")  # `which bash`: no reason
            break
    return why


def _git_config_runs(words: tuple[str, ...], at: int) -> bool:
    """`git -c KEY=V`, `--config-env KEY=V` or `git config ... KEY ...` with an alias or a
    key that runs a program (agent/sandbox/gitconfig.py): the next git command may run it."""
    if not at and (not words or os.path.basename(words[0]) != "git" or len(words) < 2):
        return False
    at = at or 1
    keys = [w.split("=", 1)[-1] if w.startswith("--config-env=") else w for w in words[1:at]]
    if words[at] == "config":
        keys += [w for w in words[at + 1:] if not w.startswith("-")]
    return any(k.lower().startswith(("alias.", "--exec-path")) or DANGEROUS_KEYS.match(k.split("=", 1)[0].lower())
               for k in keys)  # `--exec-path=DIR`: DIR/git-status is whatever the line put there


def _shell_option(name: str, options: list[Token]) -> bool:
    """Did `sudo`/`doas` get -s/-i (a shell), or is it chroot (its default: a shell)?"""
    if name == "chroot":
        return True
    for token in options:
        word = token.text
        if not word.startswith("-") or word == "--":
            break
        if word in ("--shell", "--login") or not word.startswith("--") and ("s" in word or "i" in word):
            return True
    return False


def _positional(name: str, argv: list[Token], replace: str | None) -> list[Token]:
    """A wrapper's argv past its own operands: `timeout 5`, `chrt 10`, `taskset 0x3`,
    `flock FILE` (`flock FILE -c CMD` runs CMD through sh), `env A=1`; after `xargs`,
    the words its input fills in are computed (`{}` with -I, else more at the end)."""
    first = argv[0].text if argv else ""
    if name in ("timeout", "chroot") or \
            (name in ("chrt", "taskset") and re.fullmatch(r"(?:0x)?[\da-fA-F,-]+", first)):
        return argv[1:]  # timeout's duration (`5`, `1e3`, `inf`, ...), chroot's new root
    if name == "flock" and argv:
        rest = argv[1:]
        if rest and rest[0].text in ("-c", "--command"):
            return [Token("word", "sh"), Token("word", "-c"), *rest[1:]]
        return rest
    if name == "env":
        while argv and _ASSIGN.match(argv[0].text):
            argv = argv[1:]
    if name == "xargs" and argv:
        if replace:
            return [Token(t.kind, t.text, t.dynamic or replace in t.text) for t in argv]
        return [*argv, Token("word", "", True)]
    return argv


def _xargs_replace(argv: list[Token]) -> str | None:
    """xargs' replace string (`-I X`, `-IX`, `-i`/`--replace[=X]`: `{}` by default)."""
    for n, token in enumerate(argv):
        word = token.text
        if not word.startswith("-") or word == "--":
            return None
        if word == "-I" and n + 1 < len(argv):
            return argv[n + 1].text
        if word.startswith("-I") or word.startswith("--replace="):
            return word[2:] if word.startswith("-I") else word.split("=", 1)[1]
        if word in ("-i", "--replace"):
            return "{}"
        if word.startswith("-i"):
            return word[2:]
    return None


def _options(argv: list[Token], values: frozenset[str], name: str) -> tuple[list[Token], str | None]:
    """Skip a wrapper's options; the text of `env -S/--split-string` if given."""
    i = 0
    while i < len(argv) and argv[i].text.startswith("-") and argv[i].text != "-":
        word = argv[i].text
        if word == "--":
            return argv[i + 1:], None
        if name == "env" and (word in ("-S", "--split-string") or word.startswith(("-S", "--split-string="))):
            rest = word.split("=", 1)[1] if "=" in word else word[2:]
            if rest:
                return argv[i + 1:], rest
            return argv[i + 2:], argv[i + 1].text if i + 1 < len(argv) else ""
        i += 2 if word in values else 1
    return argv[i:], None


def _find_exec(argv: list[Token]) -> list[list[Token]]:
    """`find ... -exec CMD ... ;` (and -execdir/-ok/-okdir): the commands it runs."""
    if os.path.basename(argv[0].text) != "find":
        return []
    found, i = [], 1
    while i < len(argv):
        if argv[i].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(argv) and argv[j].text not in (";", "+"):
                j += 1
            found.append(argv[i + 1:j])
            i = j
        i += 1
    return [f for f in found if f]
