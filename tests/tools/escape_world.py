"""A fake HOME with fake secrets, a HERMES_HOME, another tenant, and a workspace where
a sandboxed command has planted links to each (shared by the escape tests)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# what a link points at -> the marker its content holds (leaked if it reaches a result)
SECRETS = {
    ".ssh/id_rsa": "LEAK-SSH-KEY",
    ".aws/credentials": "LEAK-AWS",
    "HH/.env": "LEAK-DOTENV",
    "HH/config.yaml": "LEAK-CLIENT-KEYS",
    ".netrc": "LEAK-NETRC",
    ".config/gh/hosts.yml": "LEAK-GH-TOKEN",
    "HH/workspaces/other/notes.md": "LEAK-OTHER-TENANT",
    "/proc/self/environ": "LEAK-PROVIDER-KEY",
}
# files outside the workspace a write through a link would destroy
VICTIMS = {".bashrc": "alias ll='ls -l'\n", "HH/SOUL.md": "be kind\n",
           "HH/config.yaml": "LEAK-CLIENT-KEYS\n"}


@dataclass
class World:
    home: Path
    hh: Path
    ws: Path
    links: dict[str, Path] = field(default_factory=dict)  # link name in ws -> target

    def target(self, spec: str) -> Path:
        if spec.startswith("/"):
            return Path(spec)
        return self.hh / spec[3:] if spec.startswith("HH/") else self.home / spec

    def leaked(self, text: str) -> list[str]:
        return [marker for marker in SECRETS.values() if marker in text]

    def destroyed(self) -> list[str]:
        return [spec for spec, body in VICTIMS.items() if self.target(spec).read_text() != body]


@dataclass
class Battery:
    """attempted / blocked / leaked / destroyed, printed with `pytest -s`."""

    name: str
    attempted: int = 0
    blocked: int = 0
    leaked: int = 0
    destroyed: int = 0

    def line(self) -> str:
        return (f"{self.name}: attempted {self.attempted} / blocked {self.blocked} / "
                f"leaked {self.leaked} / destroyed {self.destroyed}")


def make_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hermes_home: Path) -> World:
    home = tmp_path / "fakehome"
    ws = home / "project"
    ws.mkdir(parents=True)
    (tmp_path / "tmp").mkdir()
    world = World(home, hermes_home, ws)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("FAKE_PROVIDER_KEY", "LEAK-PROVIDER-KEY")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    for spec, marker in SECRETS.items():
        if not spec.startswith("/"):
            world.target(spec).parent.mkdir(parents=True, exist_ok=True)
            world.target(spec).write_text(f"{marker}\n")
    for spec, body in VICTIMS.items():
        world.target(spec).write_text(body)
    for number, spec in enumerate(SECRETS):
        link = ws / f"s{number}"
        link.symlink_to(world.target(spec))
        world.links[link.name] = world.target(spec)
    return world
