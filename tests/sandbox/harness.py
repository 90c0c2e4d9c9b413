"""A planted fake home and store, a snapshot of them, a corpus runner, and a git project
in a fake home with its tool context (`git_project`, `run`).

Where things live, and why: everything sits in one pytest temp directory under the real
/tmp, but the sandbox's temp root is redirected (tempfile.tempdir and $TMPDIR) to its
`tmp/` subdirectory. So the writable roots are `ws/` (the workspace) and `tmp/` only,
and the fake $HOME beside them is outside every writable root, as a real /home/<user>
is, while nothing is ever written to the real ~ or /root. The "store inside the temp
dir" variant puts HERMES_HOME in `tmp/hh`, inside a writable root: only the mount
layer can protect it there.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.errors import ToolError
from agent.sandbox.backend import Sandbox
from agent.tools import terminal
from agent.tools.registry import ToolContext, ToolState

SECRETS = {
    "ssh": "PLANTED-SSH-KEY-1b2c3d", "aws": "PLANTED-AWS-9f8e7d", "netrc": "PLANTED-NETRC-5a5a",
    "gh": "PLANTED-GH-TOKEN-77aa", "gpg": "PLANTED-GPG-3c3c", "dotenv": "PLANTED-DOTENV-0d0d",
    "db": "PLANTED-DB-ROW-4e4e", "provider": "sk-PLANTED-PROVIDER-6f6f",
    "hermes_key": "PLANTED-HERMES-API-KEY-8a8a", "custom": "PLANTED-CUSTOM-2b2b",
}
ENV = {"OPENAI_API_KEY": SECRETS["provider"], "ANTHROPIC_API_KEY": SECRETS["provider"],
       "HERMES_API_KEY": SECRETS["hermes_key"], "MY_SERVICE_CONFIG": SECRETS["custom"]}


@dataclass
class Layout:
    base: Path
    home: Path
    hermes_home: Path
    ws: Path
    tmp: Path
    results: dict[str, list[str]] = field(default_factory=dict)


def plant(layout: Layout) -> None:
    h, hh = layout.home, layout.hermes_home
    files = {
        h / ".bashrc": "alias ll='ls -l'\n", h / ".profile": "PATH=$PATH\n",
        h / ".gitconfig": "[user]\n name = x\n", h / ".ssh/id_rsa": SECRETS["ssh"] + "\n",
        h / ".ssh/authorized_keys": "ssh-ed25519 AAAA owner\n",
        h / ".aws/credentials": f"[default]\naws_secret_access_key={SECRETS['aws']}\n",
        h / ".netrc": f"machine x login u password {SECRETS['netrc']}\n",
        h / ".config/gh/hosts.yml": f"github.com:\n  oauth_token: {SECRETS['gh']}\n",
        h / ".gnupg/secring.txt": SECRETS["gpg"] + "\n",
        h / "documents/notes.txt": "my thesis, chapter 1 (a)\n",
        hh / ".env": f"MY_SERVICE_CONFIG={SECRETS['custom']}\nOTHER={SECRETS['dotenv']}\n",
        hh / "state.db": f"SQLite format 3\0 row: {SECRETS['db']}\n",
        hh / "memories/MEMORY.md": "the user likes tea\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (h / "documents/empty").mkdir(exist_ok=True)


def snapshot(*roots: Path) -> dict[str, tuple]:
    """Every entry under the roots: kind, mode, owner, mtime and bytes (or link target)."""
    out: dict[str, tuple] = {}
    for root in roots:
        if not root.exists():
            out[str(root)] = ("missing",)
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            for name in [*dirnames, *filenames, ""]:
                p = Path(dirpath) / name
                st = p.lstat()
                if p.is_symlink():
                    body: bytes | str = os.readlink(p)
                elif p.is_file():
                    body = p.read_bytes()
                else:
                    body = b""
                out[str(p)] = (st.st_mode, st.st_uid, st.st_mtime_ns if p.is_file() else 0, body)
    return out


def run_corpus(layout: Layout, box: Sandbox, commands: list[str], timeout: int = 30,
               enough: Callable[[dict[str, list[str]]], bool] | None = None) -> dict[str, list[str]]:
    """Run each command through the terminal tool (yolo: the approval layer says yes);
    returns {"destroyed": [...], "leaked": [...], "errors": [...]}; re-plants after each.
    `enough(results)` true ends the run early."""
    results: dict[str, list[str]] = {"destroyed": [], "leaked": [], "errors": []}
    tempfile.tempdir = str(layout.tmp)
    try:
        for command in commands:
            for d in (layout.ws, layout.tmp):
                d.mkdir(parents=True, exist_ok=True)
            plant(layout)
            before = snapshot(layout.home, layout.hermes_home)
            ctx = ToolContext(session_id="corpus", home=layout.hermes_home, cwd=layout.ws, yolo=True,
                              state=ToolState(sandbox=box))
            try:
                output = terminal.terminal({"command": command, "timeout": timeout}, ctx)
            except ToolError as exc:
                output = str(exc)
            except OSError as exc:  # e.g. the command removed its own scratch directory
                output = repr(exc)
                results["errors"].append(command)
            if snapshot(layout.home, layout.hermes_home) != before:
                results["destroyed"].append(command)
            if any(secret in output for secret in SECRETS.values()):
                results["leaked"].append(command)
            terminal.release_processes(ctx.state)
            _restore(layout)
            if enough is not None and enough(results):
                break
    finally:
        tempfile.tempdir = None
    return results


def _restore(layout: Layout) -> None:
    """Put the fake home back exactly (a destroyed run must not spoil the next one)."""
    import shutil

    for root in (layout.home, layout.hermes_home):
        if root.is_symlink():
            root.unlink()
        shutil.rmtree(root, ignore_errors=True)  # root in CI: modes do not stop it
        root.mkdir(parents=True)


def run(ctx: ToolContext, command: str) -> str:
    """The terminal tool's result, or its refusal's text."""
    try:
        return terminal.terminal({"command": command}, ctx)
    except ToolError as exc:
        return str(exc)


def git_project(tmp_path: Path, monkeypatch: Any) -> tuple[Path, ToolContext]:
    """home/project, a fresh git repository, in a fake HOME with HERMES_HOME inside it
    (git's system and outer configs ignored); the yolo tool context working in it. The
    caller releases `ctx.state`'s processes when done."""
    home = tmp_path / "home"
    ws = home / "project"
    for d in (ws, home / ".hermes"):
        d.mkdir(parents=True)
    for key, value in (("HOME", home), ("HERMES_HOME", home / ".hermes"),
                       ("GIT_CONFIG_NOSYSTEM", "1"), ("GIT_CEILING_DIRECTORIES", tmp_path)):
        monkeypatch.setenv(key, str(value))
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return ws, ToolContext(session_id="s", home=home / ".hermes", cwd=ws, yolo=True)
