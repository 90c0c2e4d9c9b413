"""`Policy.clear_beneath` lets a walk skip the per-entry hidden check below a folder: it
may only say "clear" where no path beneath is hidden. Checked against `is_hidden` on
every path of trees mixing a hidden home, allowed folders, a workspace in the home,
secrets inside the workspace and a tenant's workspace under a hidden HERMES_HOME."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.sandbox.policy import SandboxSettings, build_policy

TREE = ("home/.ssh/id_rsa", "home/.config/git/config", "home/.config/git/credentials",
        "home/.config/other/x", "home/.cache/pip/wheel", "home/.cache/other/y", "home/docs/notes.txt",
        "home/project/src/a.py", "home/project/secrets/key", "home/project/.env",
        "home/.hermes/MEMORY.md", "home/.hermes/tenants/t1/ws/a.txt", "other/b.txt")


def _tree(tmp_path: Path) -> None:
    for rel in TREE:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")


@pytest.mark.parametrize("workspace, settings, clear", [
    ("home/project", SandboxSettings(), "home/project"),
    ("home/project", SandboxSettings(hidden=("home/project/secrets",)), "home/project/src"),
    ("home/project", SandboxSettings(home_defaults=False), "home/project"),
    ("home/.hermes/tenants/t1/ws", SandboxSettings(home_defaults=False), "home/.hermes/tenants/t1/ws"),
    ("other", SandboxSettings(writable=("home/docs",)), "home/docs"),
])
def test_a_clear_folder_has_nothing_hidden_beneath_it(tmp_path: Path, workspace: str,
                                                      settings: SandboxSettings, clear: str) -> None:
    _tree(tmp_path)
    absolute = SandboxSettings(**{**settings.__dict__,
                                  "hidden": tuple(str(tmp_path / h) for h in settings.hidden),
                                  "writable": tuple(str(tmp_path / w) for w in settings.writable)})
    policy = build_policy(absolute, tmp_path / "home" / ".hermes", tmp_path / workspace,
                          environ={"HOME": str(tmp_path / "home")})
    folders = [str(tmp_path)] + [w for w, _, _ in os.walk(tmp_path)]
    cleared = 0
    for folder in folders:
        if not policy.clear_beneath(folder):
            continue
        cleared += 1
        for where, dirs, files in os.walk(folder):
            for name in dirs + files:
                path = os.path.join(where, name)
                assert not policy.is_hidden(path), f"{folder} said clear, but {path} is hidden"
    assert cleared and policy.clear_beneath(str(tmp_path / clear))  # where walks spend their time
