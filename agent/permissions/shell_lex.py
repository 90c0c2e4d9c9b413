"""A small shell lexer for the permission rules: a command line -> tokens, the way bash
splits it (quotes, escapes, operators, comments, here-documents), with every command
substitution (`$(...)`, backticks, `<(...)`, `>(...)`) lexed too, recursively.

Not a shell: it does not expand anything. A word whose value is only known when the
command runs (a `$variable`, a substitution, a glob, a brace list) is marked `dynamic`;
what such a word means for a rule is agent/permissions/shell.py's business.
"""

from __future__ import annotations

from dataclasses import dataclass, field

OPERATORS = ("&&", "||", ";;&", ";;", ";&", "|&", ";", "|", "&", "(", ")", "\n")
REDIRECTS = ("<<<", "<<-", "<<", "<>", "<&", ">>", ">&", ">|", "&>>", "&>", "<", ">")
_BREAK = frozenset(" \t\n;&|()<>")


class Unclear(Exception):  # noqa: N818 - a verdict, not a failure
    """The line cannot be read with confidence (unbalanced quotes, too deep)."""


@dataclass(frozen=True)
class Token:
    kind: str  # "word" | "op" | "redir"
    text: str  # a word with quotes removed and escapes applied; an operator as written
    dynamic: bool = False  # part of the word is computed when it runs


@dataclass
class Lexed:
    """A line's tokens, and the token lists of every command substitution in it."""

    tokens: list[Token] = field(default_factory=list)
    inner: list[Lexed] = field(default_factory=list)


def lex(text: str, depth: int = 0) -> Lexed:
    """Tokens of `text`; raises Unclear when it cannot be read."""
    scanner = _Scanner(text, depth)
    scanner.run(stop=None)
    return scanner.out


class _Scanner:
    def __init__(self, text: str, depth: int) -> None:
        if depth > 8:
            raise Unclear("nested too deeply")
        self.s, self.i, self.depth = text, 0, depth
        self.out = Lexed()
        self.heredocs: list[tuple[str, bool, bool]] = []  # delimiter, quoted, strip tabs

    def run(self, stop: str | None) -> None:
        """Lex until the end, or until an unmatched `stop` (")") which is consumed."""
        level = 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if self.s.startswith("\\\n", self.i):
                self.i += 2
            elif c in " \t":
                self.i += 1
            elif c == "#":
                while self.i < len(self.s) and self.s[self.i] != "\n":
                    self.i += 1
            elif c == "\n":
                self.i += 1
                self.out.tokens.append(Token("op", ";"))
                self._heredoc_bodies()
            elif stop and c == stop and level == 0:
                self.i += 1
                return
            elif self.s.startswith(("<(", ">("), self.i):
                self.i += 2
                self.out.tokens.append(Token("word", self._substitution(), True))
            elif (op := self._operator()) is not None:
                level = max(0, level + {"(": 1, ")": -1}.get(op, 0))  # `a)` ends a case pattern
                self.out.tokens.append(Token("op", op))
            elif (redir := self._redirect()) is not None:
                self.out.tokens.append(Token("redir", redir))
                if redir in ("<<", "<<-"):
                    self._heredoc_start(strip=redir == "<<-")
            else:
                self.out.tokens.append(self._word())
        if stop or level:
            raise Unclear("a parenthesis is not closed")

    def _operator(self) -> str | None:
        if self.s.startswith("&>", self.i):  # a redirection, not `&`
            return None
        op = next((op for op in OPERATORS if self.s.startswith(op, self.i)), None)
        if op is not None:
            self.i += len(op)
        return op

    def _redirect(self) -> str | None:
        j = self.i
        while j < len(self.s) and self.s[j].isdigit():
            j += 1
        for op in REDIRECTS:
            if self.s.startswith(op, j) and (j == self.i or op[0] in "<>"):
                self.i = j + len(op)
                return op
        return None

    def _word(self) -> Token:
        text, dynamic, start = [], False, self.i
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in _BREAK:
                break
            if c == "\\":
                text.append(self.s[self.i + 1:self.i + 2])
                self.i += 2
            elif c == "'":
                end = self.s.find("'", self.i + 1)
                if end < 0:
                    raise Unclear("a quote is not closed")
                text.append(self.s[self.i + 1:end])
                self.i = end + 1
            elif c == '"':
                self.i += 1
                part, dyn = self._quoted('"')
                text.append(part)
                dynamic |= dyn
            elif c in "$`":
                part = self._dollar(quoted=False)
                text.append(part)
                dynamic |= part != "$"
            else:
                dynamic |= self._pattern_char(c, start)
                text.append(c)
                self.i += 1
        return Token("word", "".join(text), dynamic)

    def _pattern_char(self, c: str, start: int) -> bool:
        """An unquoted glob (`*`, `?`, `[...]`) or brace list (`a{b,c}`): the word is
        computed when it runs (`[` alone, the test command, is not)."""
        if c in "*?":
            return True
        if c not in "[{":
            return False
        close = self.s.find("]" if c == "[" else "}", self.i + 1)
        inner = self.s[self.i + 1:close] if close >= 0 else ""
        if close < 0 or any(ch in _BREAK for ch in inner):
            return False
        return c == "[" or "," in inner or ".." in inner

    def _quoted(self, end: str) -> tuple[str, bool]:
        """Inside double quotes (or `${...}`) up to `end`, which is consumed."""
        text: list[str] = []
        dynamic, level = False, 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == end and level == 0:
                self.i += 1
                return "".join(text), dynamic
            if c == "\\":
                nxt = self.s[self.i + 1:self.i + 2]
                text.append(nxt if nxt in '$`"\\\n' or end != '"' else c + nxt)
                self.i += 2
            elif c in "$`":
                part = self._dollar(quoted=True)
                text.append(part)
                dynamic |= part != "$"
            else:
                level += {"{": 1, "}": -1}.get(c, 0) if end == "}" else 0
                text.append(c)
                self.i += 1
        raise Unclear("a quote is not closed")

    def _dollar(self, *, quoted: bool) -> str:
        """A `$...` form or a backtick substitution at self.i; its text as written
        ("$" alone when the `$` is a plain character)."""
        start, s = self.i, self.s
        nxt = s[self.i + 1:self.i + 2]
        if s[self.i] == "$" and not (nxt.isalnum() or nxt in "_({@*#?$!-" and nxt
                                     or nxt in "'\"" and nxt and not quoted):
            self.i += 1
            return "$"
        if s[self.i] == "`":
            end = self.i + 1
            while end < len(s) and s[end] != "`":
                end += 2 if s[end] == "\\" else 1
            if end >= len(s):
                raise Unclear("a backtick is not closed")
            body = s[self.i + 1:end].replace("\\`", "`").replace("\\\\", "\\").replace("\\$", "$")
            self.out.inner.append(lex(body, self.depth + 1))
            self.i = end + 1
        elif s.startswith("$((", self.i):
            self.i += 3
            self._arithmetic()
        elif s.startswith("$(", self.i):
            self.i += 2
            self._substitution()
        elif s.startswith("${", self.i):
            self.i += 2
            self._quoted("}")
        elif s.startswith(("$'", '$"'), self.i):
            self.i += 1
            return self._word().text  # ANSI-C or locale quotes: the caller marks it dynamic
        else:
            self.i += 1
            while self.i < len(s) and (s[self.i].isalnum() or s[self.i] == "_"):
                self.i += 1
            if self.i == start + 1 and self.i < len(s) and s[self.i] in "@*#?$!-":
                self.i += 1
        return s[start:self.i]

    def _substitution(self) -> str:
        """The commands of `$(...)`/`<(...)`, lexed as their own line; self.i is past `(`."""
        start = self.i
        inner = _Scanner(self.s, self.depth + 1)
        inner.i = self.i
        inner.run(stop=")")
        self.i = inner.i
        self.out.inner.append(inner.out)
        return self.s[start - 2:self.i]

    def _arithmetic(self) -> None:
        """`$(( ... ))`: no commands, but substitutions inside it run."""
        level = 2
        while self.i < len(self.s) and level:
            c = self.s[self.i]
            if c in "$`" and (c == "`" or self.s.startswith("$(", self.i)):
                self._dollar(quoted=True)
                continue
            level += {"(": 1, ")": -1}.get(c, 0)
            self.i += 1
        if level:
            raise Unclear("an arithmetic expansion is not closed")

    def _heredoc_start(self, *, strip: bool) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t":
            self.i += 1
        raw_start = self.i
        word = self._word()
        quoted = any(q in self.s[raw_start:self.i] for q in "'\"\\")
        self.out.tokens.append(Token("word", word.text))
        self.heredocs.append((word.text, quoted, strip))

    def _heredoc_bodies(self) -> None:
        """After a newline: the bodies of pending here-documents (their unquoted
        substitutions run; the rest is data)."""
        for delimiter, quoted, strip in self.heredocs:
            while self.i < len(self.s):
                end = self.s.find("\n", self.i)
                end = len(self.s) if end < 0 else end
                line = self.s[self.i:end]
                self.i = min(end + 1, len(self.s))
                if (line.lstrip("\t") if strip else line) == delimiter:
                    break
                if not quoted and ("$" in line or "`" in line):
                    body = _Scanner(line + '"', self.depth + 1)
                    body._quoted('"')
                    self.out.inner += body.out.inner
        self.heredocs = []
