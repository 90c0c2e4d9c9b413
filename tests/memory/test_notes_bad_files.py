"""MEMORY.md / USER.md edited by hand into something unreadable or oversized: the
snapshot still builds, a person gets a warning, and nothing is overwritten."""

from __future__ import annotations

import pytest

from memory.errors import NotesError
from memory.notes import Notes


def test_non_utf8_file_is_left_out_warned_about_and_never_overwritten(tmp_path):
    notes = Notes(tmp_path)
    notes.dir.mkdir()
    garbage = b"\x00\xff\xfe not text \x80" * 20
    notes.path("memory").write_bytes(garbage)
    notes.path("user").write_text("likes tea\n")
    snap = notes.snapshot()
    assert snap.memory == () and snap.user == ("likes tea",)
    [warning] = notes.problems()
    assert "MEMORY.md is not UTF-8 text" in warning and "left out of the system prompt" in warning
    with pytest.raises(NotesError, match="not UTF-8"):
        notes.add("memory", "a new fact")
    assert notes.path("memory").read_bytes() == garbage


def test_a_directory_in_place_of_the_file_is_a_warning(tmp_path):
    notes = Notes(tmp_path)
    notes.path("memory").mkdir(parents=True)
    assert notes.snapshot().memory == ()
    assert "cannot be read" in notes.problems()[0]


def test_over_limit_file_is_used_whole_with_a_warning(tmp_path):
    notes = Notes(tmp_path)
    notes.dir.mkdir()
    entries = [f"fact {i} " + "x" * 100 for i in range(40)]
    notes.path("memory").write_text("\n§\n".join(entries))
    assert list(notes.snapshot().memory) == entries
    [warning] = notes.problems()
    assert "over its 2,200-char limit" in warning
    with pytest.raises(NotesError, match="would be"):
        notes.add("memory", "one more")
    assert notes.remove("memory", "fact 39 ").startswith("Removed")  # shrinking still works
