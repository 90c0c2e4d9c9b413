"""`frontend.visible`: model-chosen text in a question, controls written out (fast tier)."""

from __future__ import annotations

from frontend.visible import visible


def test_controls_escapes_and_invisible_characters_are_written_out():
    assert visible("rm -rf *\r\x1b[2Kls") == "rm -rf *\\r\\x1b[2Kls"
    assert visible("a\x00b\x07c\x08d\x7fe\x9bf") == "a\\0b\\ac\\bd\\x7fe\\x9bf"
    assert visible("ab\u202edc\u200b\u2028") == "ab\\u202edc\\u200b\\u2028"  # bidi, zero-width


def test_newlines_tabs_and_printable_text_are_kept():
    text = "for f in *; do\n\techo \"$f\" 😀 é\ndone"
    assert visible(text) == text
