"""Editing HERMES_HOME's files in place: config.yaml keeping its comments and order
(ruamel.yaml's round trip), .env keeping its other lines, mode 0600. Each write goes to a
temporary file beside the target, then replaces it (never half a file)."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

from agent.errors import ConfigError

# Function-level imports below: ruamel.yaml loads only when a command edits config.yaml.


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML()  # round trip: comments, order, quoting kept
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def load(path: Path) -> Any:
    """config.yaml as an editable mapping (empty when there is none)."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.error import YAMLError

    if not path.exists():
        return CommentedMap()
    try:
        data = _yaml().load(path.read_text(encoding="utf-8"))
    except YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({' '.join(str(exc).split())[:160]})",
                          "fix the file by hand first (`hermes doctor` says where)") from None
    if data is None:
        return CommentedMap()
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level is not a mapping of settings",
                          "write one setting per line, e.g. `model: claude-sonnet-4-5`")
    return data


def dump(data: Any) -> str:
    out = io.StringIO()
    _yaml().dump(data, out)
    return out.getvalue()


def save(path: Path, data: Any) -> None:
    """Write config.yaml (its mode kept; 0600 for a new one)."""
    _replace(path, dump(data), path.stat().st_mode & 0o777 if path.exists() else 0o600)


def set_key(data: Any, dotted: str, value: Any) -> None:
    """Set `dotted` ("cache.ttl"), making the sections it needs."""
    from ruamel.yaml.comments import CommentedMap

    *sections, leaf = dotted.split(".")
    node = data
    for part in sections:
        child = node.get(part)
        if child is None:
            child = node[part] = CommentedMap()
        elif not isinstance(child, dict):
            raise ConfigError(f"config.yaml: `{part}` holds {child!r}, not a section",
                              f"`hermes config unset {part}` first, then set {dotted}")
        node = child
    node[leaf] = value


def unset_key(data: Any, dotted: str) -> bool:
    """Remove `dotted` (and sections it leaves empty); False when it was not there."""
    *sections, leaf = dotted.split(".")
    path = [data]
    for part in sections:
        child = path[-1].get(part)
        if not isinstance(child, dict):
            return False
        path.append(child)
    if leaf not in path[-1]:
        return False
    del path[-1][leaf]
    for depth in range(len(sections) - 1, -1, -1):
        if path[depth + 1]:
            break
        del path[depth][sections[depth]]
    return True


def set_env(path: Path, name: str, value: str) -> None:
    """Set `name=value` in a .env file (other lines kept; mode 0600)."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    line = f"{name}={_quoted(value)}"
    for index, old in enumerate(lines):
        key = old.strip().removeprefix("export ").partition("=")[0].strip()
        if key == name:
            lines[index] = line
            break
    else:
        lines.append(line)
    _replace(path, "\n".join(lines) + "\n", 0o600)


def _quoted(value: str) -> str:
    """The value as a .env line holds it: bare, or in single quotes (literal)."""
    if "'" in value or "\n" in value or "\r" in value:
        raise ConfigError("that value holds a quote or a line break, which a .env line "
                          "cannot carry literally", "check what was pasted")
    if value and all(c.isalnum() or c in "-_./:+@" for c in value):
        return value
    return f"'{value}'"


def _replace(path: Path, text: str, mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
