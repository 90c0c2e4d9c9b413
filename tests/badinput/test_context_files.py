"""Binary context files are refused with a warning; notes far over their limit are cut
to the limit in the prompt, with a warning saying how to fix the file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent.prompts.context import context_problems, find_context_file, read_soul
from memory.notes import LIMITS, Notes
from tests.helpers import anthropic_env, hermes

EXECUTABLE = Path(sys.executable).resolve().read_bytes()[:100_000]
BINARIES = {
    "executable": EXECUTABLE,
    "nul-in-text": b"# Rules\n\x00\x00\x00 more",
    "latin1-noise": bytes(range(128, 256)) * 40,
    "png-header": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 10,
}


@pytest.mark.parametrize("name", ["AGENTS.md", "CLAUDE.md", ".cursorrules", "HERMES.md",
                                  ".hermes.md"])
@pytest.mark.parametrize("kind", sorted(BINARIES))
def test_binary_context_file_is_refused_with_a_warning(name, kind, tmp_path):
    (tmp_path / name).write_bytes(BINARIES[kind])
    assert find_context_file(tmp_path) is None
    problems = context_problems(tmp_path / "home", tmp_path)
    assert len(problems) == 1 and name in problems[0] and "binary" in problems[0]


def test_text_context_file_behind_a_binary_one_is_used(tmp_path):
    (tmp_path / "HERMES.md").write_bytes(EXECUTABLE)
    (tmp_path / "AGENTS.md").write_text("use tabs\n")
    found = find_context_file(tmp_path)
    assert found is not None and found.name == "AGENTS.md"
    assert len(context_problems(tmp_path, tmp_path)) == 1


@pytest.mark.parametrize("kind", sorted(BINARIES))
def test_binary_soul_is_refused(kind, tmp_path):
    (tmp_path / "SOUL.md").write_bytes(BINARIES[kind])
    assert read_soul(tmp_path) is None
    assert "SOUL.md looks like a binary file" in context_problems(tmp_path, tmp_path / "x")[0]


def test_a_few_bad_bytes_do_not_make_a_file_binary(tmp_path):
    (tmp_path / "SOUL.md").write_bytes(b"I am \xff a soul, mostly text " * 3)
    assert read_soul(tmp_path) is not None
    assert context_problems(tmp_path, tmp_path) == []


@pytest.mark.parametrize("target", ["memory", "user"])
@pytest.mark.parametrize("shape", ["one-huge-entry", "many-entries"])
def test_notes_far_over_limit_are_cut_with_a_fix(target, shape, tmp_path):
    notes = Notes(tmp_path)
    notes.dir.mkdir()
    limit = LIMITS[target]
    text = "x" * (limit * 50) if shape == "one-huge-entry" else "\n§\n".join(
        f"entry {i} " + "y" * 90 for i in range(limit))
    notes.path(target).write_text(text)
    snap = notes.snapshot()
    kept = getattr(snap, target)
    assert 0 < len("\n§\n".join(kept)) <= limit
    problem = notes.problems()[0]
    assert "far over its" in problem and f"under {limit:,} chars" in problem
    assert notes.path(target).read_text() == text  # the file itself is untouched


def test_notes_mildly_over_limit_still_go_in_whole(tmp_path):
    notes = Notes(tmp_path)
    notes.dir.mkdir()
    notes.path("memory").write_text("z" * (LIMITS["memory"] + 10))
    assert len(notes.snapshot().memory[0]) == LIMITS["memory"] + 10
    assert "used whole" in notes.problems()[0]


def test_cli_binary_agents_md_is_left_out_with_a_warning(fake_provider, hermes_home, tmp_path):
    (tmp_path / "AGENTS.md").write_bytes(EXECUTABLE)
    (hermes_home / "memories").mkdir()
    (hermes_home / "memories" / "MEMORY.md").write_text("m" * 3_500_000)
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "AGENTS.md looks like a binary file" in result.stderr
    assert "far over its 2,200-char limit" in result.stderr
    assert len(json.dumps(fake_provider.last.body)) < 100_000
