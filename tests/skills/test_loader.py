"""skills.loader: discovery, precedence, broken files, index lines, extra files."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from skills.loader import SkillError, bundled_dir, discover

BUNDLED = {"code-review", "debugging", "git-commit", "write-tests"}


def write_skill(root: Path, folder: str, text: str) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill_text(name: str, description: str = "Does a thing.", extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\nBody.\n"


def test_bundled_skills_are_found_and_well_formed(tmp_path):
    catalog = discover(tmp_path)
    assert catalog.warnings == []
    assert set(catalog.skills) >= BUNDLED
    for name in BUNDLED:
        skill = catalog.get(name)
        assert skill.source == "bundled"
        assert skill.path == bundled_dir() / name / "SKILL.md"
        assert 30 <= len(skill.body.splitlines()) <= 80
        assert skill.body.startswith("---\n")


def test_user_skill_overrides_bundled_and_keys_are_sorted(tmp_path):
    user = tmp_path / "skills"
    write_skill(user, "git-commit", skill_text("git-commit", "My own commit rules."))
    write_skill(user, "aaa-first", skill_text("aaa-first", extra="license: MIT\nmetadata:\n  tags: [x]\n"))
    write_skill(user, "devops/deploy", skill_text("deploy"))  # one category level deeper
    catalog = discover(tmp_path)
    assert catalog.warnings == []
    assert list(catalog.skills) == sorted(catalog.skills)
    mine = catalog.get("git-commit")
    assert (mine.source, mine.description) == ("user", "My own commit rules.")
    assert catalog.get("deploy").source == "user"
    assert catalog.get("aaa-first").metadata["metadata"] == {"tags": ["x"]}
    assert catalog.get("aaa-first").metadata["license"] == "MIT"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# no frontmatter\n", "no YAML frontmatter"),
        ("---\nname: x\ndescription: y\n", "not closed"),
        ("---\nname: [unclosed\ndescription: y\n---\n", "invalid YAML"),
        ("---\n- a list\n---\n", "not a mapping"),
        ("---\ndescription: y\n---\n", "missing 'name'"),
        ("---\nname: broken\n---\n", "missing 'description'"),
        ("---\nname: Bad_Name\ndescription: y\n---\n", "lowercase"),
        (f"---\nname: {'a' * 65}\ndescription: y\n---\n", "max 64"),
        (f"---\nname: broken\ndescription: {'d' * 1025}\n---\n", "max 1024"),
    ],
)
def test_broken_skill_is_skipped_with_one_warning(tmp_path, text, problem):
    path = write_skill(tmp_path / "skills", "broken", text)
    write_skill(tmp_path / "skills", "fine", skill_text("fine"))
    catalog = discover(tmp_path, bundled=tmp_path / "none")
    assert list(catalog.skills) == ["fine"]
    assert len(catalog.warnings) == 1
    assert str(path) in catalog.warnings[0] and problem in catalog.warnings[0]


def test_folder_name_may_differ_but_duplicates_warn(tmp_path):
    write_skill(tmp_path / "skills", "a-folder", skill_text("shared"))
    second = write_skill(tmp_path / "skills", "b-folder", skill_text("shared"))
    catalog = discover(tmp_path, bundled=tmp_path / "none")
    assert catalog.get("shared").path.parent.name == "a-folder"
    assert len(catalog.warnings) == 1 and str(second) in catalog.warnings[0]


def test_index_lines_are_one_line_each(tmp_path):
    write_skill(tmp_path / "skills", "multi", skill_text("multi", "|\n  First line.\n  Second   line.\n"))
    catalog = discover(tmp_path, bundled=tmp_path / "none")
    assert catalog.index_lines() == ["multi: First line. Second line."]
    full = discover(tmp_path)
    assert len(full.index_lines()) == len(full.skills)
    assert all("\n" not in line for line in full.index_lines())


def test_extra_files_and_path_traversal(tmp_path):
    skill_md = write_skill(tmp_path / "skills", "tool", skill_text("tool"))
    (skill_md.parent / "references").mkdir()
    (skill_md.parent / "references" / "api.md").write_text("API docs")
    (skill_md.parent / "run.sh").write_text("echo hi")
    (skill_md.parent / ".hidden").write_text("x")
    (tmp_path / "secret.txt").write_text("top secret")
    skill = discover(tmp_path).get("tool")
    assert skill.files() == ["references/api.md", "run.sh"]
    assert skill.read_file("references/api.md") == "API docs"
    for bad, message in (
        ("../../secret.txt", "leaves the skill folder"),
        (str(tmp_path / "secret.txt"), "absolute"),
        ("~/x", "absolute"),
        ("missing.md", "has no file"),
        ("", "no file"),
    ):
        with pytest.raises(SkillError, match=message):
            skill.read_file(bad)


def test_symlink_out_of_the_folder_is_refused(tmp_path):
    skill_md = write_skill(tmp_path / "skills", "tool", skill_text("tool"))
    (tmp_path / "secret.txt").write_text("top secret")
    (skill_md.parent / "link.md").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(SkillError, match="outside"):
        discover(tmp_path).get("tool").read_file("link.md")


def test_discovering_fifty_skills_is_fast(tmp_path):
    for i in range(50):
        write_skill(tmp_path / "skills", f"skill-{i:02d}", skill_text(f"skill-{i:02d}", f"Skill number {i}."))
    discover(tmp_path)  # warm the OS cache
    start = time.perf_counter()
    catalog = discover(tmp_path)
    elapsed = time.perf_counter() - start
    assert len(catalog.skills) == 54
    print(f"[discover: {elapsed * 1000:.1f} ms for 54 skills]")  # measured, never asserted
