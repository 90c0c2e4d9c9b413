"""Which typed lines are messages that merely start with "!" or "/" (fast tier)."""

from __future__ import annotations

import pytest

from hermes_cli.repl.line import escaped


@pytest.mark.parametrize(("line", "message"), [
    ("\\!important", "!important"),
    ("  \\!!twice", "!!twice"),
    ("//etc/hosts is odd", "/etc/hosts is odd"),
    ("!ls", None),
    ("!!ls", None),
    ("/help", None),
    ("a \\!b", None),
    ("\\n is a newline", None),
])
def test_escaped_lines(line, message):
    assert escaped(line) == message
