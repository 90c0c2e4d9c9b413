"""Skill discovery: folders holding a `SKILL.md` with YAML frontmatter (agentskills.io).

Two sources, user skills winning over bundled ones of the same name:

- bundled: `skills/bundled/<name>/SKILL.md`, shipped as package data;
- user:    `HERMES_HOME/skills/<name>/SKILL.md`, also one category level deeper
  (`HERMES_HOME/skills/<category>/<name>/SKILL.md`), as hermes-agent lays them out.

A gateway tenant may have a third, its own (`discover(..., tenant=DIR)`, source
"tenant"): indexed after the installation's in a prompt block of its own, so a tenant
skill never takes a name the installation already has (it is skipped with a warning).

Frontmatter rules: `name` (required, <= 64 chars, lowercase letters/digits/hyphens, no
leading, trailing or doubled hyphen) and `description` (required, non-empty, <= 1024
chars); every other key (`license`, `allowed-tools`, `metadata`, ...) is kept verbatim in
`Skill.metadata`, which holds the whole frontmatter mapping.

Decisions:
- The frontmatter `name` is the skill's identity. A folder named differently is accepted
  (renamed or copied folders keep working); the spec's "name matches folder" is advice.
- A broken SKILL.md (unreadable, no frontmatter, bad YAML, missing or invalid name or
  description) is skipped with exactly one warning naming the file and the problem.
- Two skills of the same source with the same name: the first by path wins, the other is
  skipped with a warning. A user skill replacing a bundled one is intended: no warning.

Each SKILL.md is read once, at `discover()`; nothing is re-read afterwards (extra files
are read only when asked for, by `Skill.read_file`).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import safefs

SKILL_FILE = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
_NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_SKIP_PARTS = {"__pycache__", "node_modules"}
# CSafeLoader has exactly safe_load's semantics, only faster (libyaml).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class SkillError(Exception):
    """A skill file could not be read; `message` says why, for a person or a model."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, eq=False)
class Skill:
    """One parsed skill. `path` is its SKILL.md; `body` the full SKILL.md text."""

    name: str
    description: str
    path: Path
    source: str  # "bundled" or "user"
    body: str
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        """The skill's folder."""
        return self.path.parent

    def files(self) -> list[str]:
        """Relative POSIX paths of the files beside SKILL.md (hidden files excluded)."""
        found: list[str] = []
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_PARTS)
            rel_dir = Path(dirpath).relative_to(self.root)
            for name in filenames:
                if name.startswith(".") or (rel_dir == Path(".") and name == SKILL_FILE):
                    continue
                found.append((rel_dir / name).as_posix())
        return sorted(found)

    def read_file(self, rel: str) -> str:
        """The text of an extra file of this skill; refuses paths leaving the folder."""
        if not rel or not rel.strip():
            raise SkillError("no file given")
        candidate = Path(rel)
        if candidate.is_absolute() or rel.startswith("~"):
            raise SkillError(f"'{rel}' is absolute; give a path relative to the skill folder")
        if ".." in candidate.parts:
            raise SkillError(f"'{rel}' leaves the skill folder ('..' is not allowed)")
        try:  # beneath the skill's folder: a link leaving it is refused (safefs)
            return safefs.read_bytes(str(self.root), candidate.as_posix()).decode("utf-8")
        except safefs.Escape:
            raise SkillError(f"'{rel}' resolves outside the skill folder") from None
        except OSError:
            listing = ", ".join(self.files()) or "none"
            raise SkillError(f"skill '{self.name}' has no file '{rel}'. Its files: {listing}") from None
        except UnicodeDecodeError as exc:
            raise SkillError(f"'{rel}' is not UTF-8 text") from exc


@dataclass(frozen=True, eq=False)
class SkillCatalog:
    """The skills of a session: `skills` sorted by name, plus discovery `warnings`."""

    skills: dict[str, Skill] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    # skipped skills by folder name (and frontmatter name when it could be read):
    # "PATH: problem", so "--skills NAME" can explain instead of saying "unknown"
    broken: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> Skill | None:
        """The skill called `name`, or None."""
        return self.skills.get(name)

    def problem(self, name: str) -> str | None:
        """Why a skill called `name` was skipped (None: loaded fine, or no such skill)."""
        return None if name in self.skills else self.broken.get(name)

    def names(self) -> list[str]:
        """All skill names, sorted."""
        return list(self.skills)

    def close_names(self, name: str, n: int = 5) -> list[str]:
        """Names resembling `name` (for "did you mean" messages)."""
        names = self.names()
        close = difflib.get_close_matches(name, names, n=n, cutoff=0.5)
        close += [s for s in names if name and name in s and s not in close]
        return close[:n]

    def index_lines(self, sources: tuple[str, ...] = ("bundled", "user")) -> list[str]:
        """One `name: description` line per skill of `sources` (the installation's by
        default), sorted, description on one line."""
        return [f"{s.name}: {one_line(s.description)}" for s in self.skills.values()
                if s.source in sources]

    def __len__(self) -> int:
        return len(self.skills)


def one_line(text: str) -> str:
    """Collapse all whitespace runs (newlines included) to single spaces."""
    return " ".join(text.split())


def bundled_dir() -> Path:
    """Where the bundled skills live (package data beside this module)."""
    return Path(__file__).resolve().parent / "bundled"


def discover(home: Path, *, bundled: Path | None = None,
             scan: Callable[[str], str | None] | None = None,
             tenant: Path | None = None) -> SkillCatalog:
    """Find and parse all skills: bundled ones, then `home/skills`, which win by name,
    then a gateway tenant's own folder `tenant` (new names only, see the module doc).

    `scan(text) -> reason | None` (the injection scanner, passed in by the agent: skills
    import no other package) checks each description and body; a hit skips the skill
    with one warning, like any other broken skill.

    `bundled` overrides the bundled folder (tests, benchmarks); pass a missing path to
    load user skills only.
    """
    warnings: list[str] = []
    broken: dict[str, str] = {}
    found: dict[str, Skill] = {}
    found.update(_load_source(bundled if bundled is not None else bundled_dir(), "bundled", warnings,
                              broken, scan))
    found.update(_load_source(Path(home) / "skills", "user", warnings, broken, scan))
    if tenant is not None:
        for name, skill in _load_source(Path(tenant), "tenant", warnings, broken, scan).items():
            if name in found:
                warnings.append(f"skipped skill {skill.path}: '{name}' is installed for "
                                "everyone already (a tenant's own skill needs a name of its own)")
                continue
            found[name] = skill
    return SkillCatalog({name: found[name] for name in sorted(found)}, warnings, broken)


#: (path, source, scanner, text) -> the parsed Skill: every agent build discovers the
#: skills, and parsing + the injection scan was ~75% of a gateway agent's rebuild (a
#: session moving between workers). Keyed by the text itself, so an edit is never missed.
_PARSED: dict[tuple[str, str, Callable[[str], str | None] | None, str], Skill] = {}
_PARSED_MAX = 512


def parse_skill(path: Path, source: str, scan: Callable[[str], str | None] | None = None) -> Skill:
    """Parse one SKILL.md; raises SkillError naming the problem."""
    if path.is_dir():
        raise SkillError(f"{SKILL_FILE} is a directory, not a file")
    try:  # beneath the skill's own folder: SKILL.md -> ~/.ssh/... is refused
        text = safefs.read_bytes(str(path.parent), path.name).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SkillError("not UTF-8 text (save it as UTF-8)") from exc
    except safefs.Escape:
        raise SkillError(f"{SKILL_FILE} is a link leading outside the skill's folder; "
                         "not loaded") from None
    except OSError as exc:
        raise SkillError(f"unreadable ({exc.strerror or exc})") from exc
    key = (str(path), source, scan, text)
    known = _PARSED.get(key)
    if known is not None:
        return known
    skill = parse_text(path, source, scan, text)
    if len(_PARSED) >= _PARSED_MAX:
        _PARSED.clear()
    _PARSED[key] = skill
    return skill


def parse_text(path: Path, source: str, scan: Callable[[str], str | None] | None,
               text: str) -> Skill:
    """Parse the text of a SKILL.md at `path` (read already); raises SkillError."""
    front = _frontmatter(text)
    try:
        meta = yaml.load(front, Loader=_LOADER)
    except yaml.YAMLError as exc:
        raise SkillError(f"invalid YAML frontmatter ({_yaml_problem(exc)})") from exc
    if not isinstance(meta, dict):
        raise SkillError("frontmatter is not a mapping of keys to values")
    name = check_name(meta.get("name"))
    description = _check_description(meta.get("description"))
    threat = scan(description) or scan(text) if scan is not None else None
    if threat:
        raise SkillError(f"blocked by the injection scanner ({threat})")
    return Skill(name, description.strip(), path, source, text, meta)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """'line N: problem' with N counted in the SKILL.md file (frontmatter starts on line 2)."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None)
    if mark is None or not problem:
        return one_line(str(exc))
    context = getattr(exc, "context", None)
    where = f" {context}" if context else ""
    return f"line {mark.line + 2}: {problem}{where}"


def _frontmatter(text: str) -> str:
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise SkillError("no YAML frontmatter (the file must start with a '---' line)")
    for i, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return "\n".join(lines[1:i])
    raise SkillError("frontmatter is not closed by a '---' line")


def check_name(name: object) -> str:
    """`name` when it is a valid skill name, else SkillError saying why."""
    if name is None or name == "":
        raise SkillError("missing 'name' in frontmatter")
    if not isinstance(name, str):
        raise SkillError("'name' must be a string")
    if len(name) > MAX_NAME:
        raise SkillError(f"'name' is {len(name)} characters long (max {MAX_NAME})")
    if not _NAME_RE.fullmatch(name):
        raise SkillError(
            f"'name' {name!r} must be lowercase letters, digits and single hyphens "
            "(no leading or trailing hyphen)"
        )
    return name


def _check_description(description: object) -> str:
    if description is None or (isinstance(description, str) and not description.strip()):
        raise SkillError("missing 'description' in frontmatter")
    if not isinstance(description, str):
        raise SkillError("'description' must be a string")
    if len(description.strip()) > MAX_DESCRIPTION:
        raise SkillError(
            f"'description' is {len(description.strip())} characters long (max {MAX_DESCRIPTION})"
        )
    return description


def _load_source(root: Path, source: str, warnings: list[str],
                 broken: dict[str, str] | None = None,
                 scan: Callable[[str], str | None] | None = None) -> dict[str, Skill]:
    skills: dict[str, Skill] = {}
    for path in _skill_files(root):
        try:
            skill = parse_skill(path, source, scan)
        except SkillError as exc:
            problem = f"{path}: {exc.message}"
            warnings.append(f"skipped skill {problem}")
            if broken is not None:
                broken.setdefault(path.parent.name, problem)
                name = _declared_name(path)
                if name:
                    broken.setdefault(name, problem)
            continue
        if skill.name in skills:
            warnings.append(
                f"skipped skill {path}: name '{skill.name}' is already used by {skills[skill.name].path}"
            )
            continue
        skills[skill.name] = skill
    return skills


def _declared_name(path: Path) -> str | None:
    """The `name:` line of a broken SKILL.md's frontmatter, when one is plainly there."""
    try:
        head = safefs.read_bytes(str(path.parent), path.name)[:4096].decode("utf-8", "replace")
    except OSError:
        return None
    match = re.search(r"^name:[ \t]*['\"]?([A-Za-z0-9-]{1,64})['\"]?[ \t]*$", head, re.MULTILINE)
    return match.group(1) if match else None


def _skill_files(root: Path, depth: int = 2) -> list[Path]:
    """SKILL.md files in `root/<name>/` and `root/<category>/<name>/`, sorted by path."""
    found: list[Path] = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:  # missing or unreadable folder: no skills from it
        return found
    for entry in entries:
        if entry.name.startswith(".") or entry.name in _SKIP_PARTS or not entry.is_dir():
            continue
        skill_md = Path(entry.path) / SKILL_FILE
        if skill_md.exists():  # a directory named SKILL.md is reported by parse_skill
            found.append(skill_md)
        elif depth > 1:
            found.extend(_skill_files(Path(entry.path), depth - 1))
    return found
