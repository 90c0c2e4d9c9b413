"""Broken SKILL.md files: one warning each, and the reason is kept by name so asking
for a broken skill explains itself instead of saying "unknown"."""

from __future__ import annotations

from pathlib import Path

from skills.loader import discover


def _skill(home: Path, folder: str, text: str | bytes | None) -> Path:
    root = home / "skills" / folder
    root.mkdir(parents=True)
    path = root / "SKILL.md"
    if text is None:
        path.mkdir()
    elif isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_directory_named_skill_md_is_reported(tmp_path):
    _skill(tmp_path, "odd", None)
    catalog = discover(tmp_path, bundled=tmp_path / "none")
    assert len(catalog.warnings) == 1
    assert "SKILL.md is a directory" in catalog.warnings[0]
    assert "is a directory" in catalog.problem("odd")


def test_yaml_error_names_the_file_line(tmp_path):
    _skill(tmp_path, "bad", "---\nname: bad\ndescription: [unclosed\n---\nbody\n")
    catalog = discover(tmp_path, bundled=tmp_path / "none")
    assert "invalid YAML frontmatter (line 4:" in catalog.warnings[0]
    assert catalog.problem("bad").endswith(catalog.warnings[0].split(": ", 1)[1])


def test_broken_skills_are_known_by_folder_and_declared_name(tmp_path):
    _skill(tmp_path, "folder-a", "---\nname: nodesc\n---\nbody\n")
    _skill(tmp_path, "long", "---\nname: " + "a" * 70 + "\ndescription: d\n---\n")
    _skill(tmp_path, "latin", b"---\nname: latin\ndescription: caf\xe9\n---\n")
    catalog = discover(tmp_path, bundled=tmp_path / "none")
    assert "missing 'description'" in catalog.problem("nodesc")
    assert "missing 'description'" in catalog.problem("folder-a")
    assert "70 characters long" in catalog.problem("long")
    assert "not UTF-8" in catalog.problem("latin")
    assert catalog.problem("no-such-skill") is None
    assert len(catalog.warnings) == 3 and not catalog.skills
