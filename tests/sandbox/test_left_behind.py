"""What a sandboxed command leaves behind cannot run later with the user's power (issue
52, findings 10 and 11): repositories made or changed anywhere beneath the workspace -
bare, with a separate git dir, nested - keep no program-running config, and the files
an ordinary command of the user runs (pre-commit's config, husky's hooks, what direnv
loads with `.envrc`) do not survive. Each case is followed by what the user does next
on the host, which must run nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.backend import backend
from agent.tools import terminal
from agent.tools.registry import ToolContext
from tests.sandbox.harness import run

pytestmark = [pytest.mark.wire,
              pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}"),
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]

RUN = "touch {marks}/ran-$$"


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    home, marks = tmp_path / "home", tmp_path / "marks"
    ws = home / "project"
    for d in (ws, marks, home / ".hermes"):
        d.mkdir(parents=True)
    for key, value in (("HOME", home), ("HERMES_HOME", home / ".hermes"),
                       ("GIT_CONFIG_NOSYSTEM", "1"), ("GIT_CEILING_DIRECTORIES", tmp_path)):
        monkeypatch.setenv(key, str(value))
    ctx = ToolContext(session_id="s", home=home / ".hermes", cwd=ws, yolo=True)
    yield ws, marks, ctx
    terminal.release_processes(ctx.state)


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=u@x", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=30, check=False)


def _keys(config: Path) -> str:
    return subprocess.run(["git", "config", "--file", str(config), "--list"], capture_output=True,
                          text=True, check=False).stdout


# ---- any repository the command made or changed --------------------------

def test_a_bare_repository_keeps_no_alias_pager_or_hook(ws) -> None:
    root, marks, ctx = ws
    out = run(ctx, f"git init -q --bare evil.git && git -C evil.git config alias.st '!{RUN}' && "
                    f"git -C evil.git config core.pager 'sh -c \"{RUN}\"' && "
                    f"git -C evil.git config pager.log '{RUN}' && "
                    f"printf '#!/bin/sh\\n{RUN}\\n' > evil.git/hooks/post-receive && "
                    "chmod +x evil.git/hooks/post-receive && echo made".format(marks=marks))
    assert "made" in out, out
    keys = _keys(root / "evil.git" / "config")
    assert "core.bare=true" in keys  # still a repository
    for key in ("alias.st", "core.pager", "pager.log"):
        assert key not in keys, keys
    assert not (root / "evil.git" / "hooks" / "post-receive").exists()
    _git(root / "evil.git", "st")  # the user's alias, on the host
    assert sorted(os.listdir(marks)) == []


def test_a_separate_git_dir_keeps_no_fsmonitor(ws) -> None:
    root, marks, ctx = ws
    (root / "evil.sh").write_text(f"#!/bin/sh\n{RUN.format(marks=marks)}\n")
    (root / "evil.sh").chmod(0o755)
    out = run(ctx, "mkdir -p a/b && cd a/b && "
                    "git init -q --separate-git-dir=../../store r && "
                    f"git -C r config core.fsmonitor {root}/evil.sh && echo made")
    assert "made" in out, out
    assert "fsmonitor" not in _keys(root / "store" / "config")
    repo = root / "a" / "b" / "r"
    (repo / "x.txt").write_text("x\n")
    _git(repo, "status")
    _git(repo, "add", "x.txt")
    _git(repo, "commit", "-qm", "x")
    assert sorted(os.listdir(marks)) == []


def test_a_nested_repository_changed_later_keeps_no_alias(ws) -> None:
    """A repository three folders down, made in one command and armed in the next."""
    root, marks, ctx = ws
    assert "[exit code 0]" in run(ctx, "git init -q x/y/repo")
    run(ctx, f"git -C x/y/repo config alias.st '!{RUN}'".format(marks=marks))
    run(ctx, f"git -C x/y/repo config alias.co '!{RUN}'".format(marks=marks))
    keys = _keys(root / "x" / "y" / "repo" / ".git" / "config")
    assert "alias.st" not in keys and "alias.co" not in keys, keys
    _git(root / "x" / "y" / "repo", "st")
    _git(root / "x" / "y" / "repo", "co")
    assert sorted(os.listdir(marks)) == []


def test_a_worktree_of_a_nested_repository_keeps_no_fsmonitor(ws) -> None:
    root, marks, ctx = ws
    (root / "evil.sh").write_text(f"#!/bin/sh\n{RUN.format(marks=marks)}\n")
    (root / "evil.sh").chmod(0o755)
    repo = root / "x" / "y" / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", "a.txt")
    assert _git(repo, "commit", "-qm", "a").returncode == 0
    out = run(ctx, "git -C x/y/repo worktree add -q ../wt && "
                    "git -C x/y/repo config extensions.worktreeConfig true && "
                    f"git -C x/y/wt config --worktree core.fsmonitor {root}/evil.sh && echo made")
    assert "made" in out, out
    wt = root / "x" / "y" / "wt"
    (wt / "b.txt").write_text("b\n")
    _git(wt, "status")
    _git(wt, "add", "b.txt")
    _git(wt, "commit", "-qm", "b")
    assert sorted(os.listdir(marks)) == []


def test_the_users_own_keys_in_a_nested_repository_stay(ws) -> None:
    root, _marks, ctx = ws
    assert "[exit code 0]" in run(ctx, "true")  # the guard's last walk saw no repository
    repo = root / "vendor" / "lib"  # the user makes one between two commands
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert _git(repo, "config", "alias.mine", "!echo mine").returncode == 0
    out = run(ctx, "git -C vendor/lib config user.name agent && echo ok")
    assert "ok" in out
    keys = _keys(repo / ".git" / "config")
    assert "alias.mine=!echo mine" in keys and "user.name=agent" in keys, keys


# ---- what the user's routine commands run ---------------------------------

def test_a_planted_pre_commit_config_and_husky_hook_are_removed(ws) -> None:
    root, _marks, ctx = ws
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    out = run(ctx, "printf 'repos:\\n- repo: local\\n  hooks:\\n  - id: x\\n    name: x\\n"
                    "    entry: sh -c evil\\n    language: system\\n' > .pre-commit-config.yaml && "
                    "mkdir -p .husky && printf 'evil\\n' > .husky/pre-commit && echo made")
    assert "made" in out and "put back files" in out, out
    assert not (root / ".pre-commit-config.yaml").exists()
    assert not (root / ".husky" / "pre-commit").exists()


def test_an_existing_pre_commit_config_cannot_be_changed(ws) -> None:
    root, _marks, ctx = ws
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".pre-commit-config.yaml").write_text("repos: []\n")
    run(ctx, "printf 'repos:\\n- repo: local\\n' >> .pre-commit-config.yaml")
    assert (root / ".pre-commit-config.yaml").read_text() == "repos: []\n"


@pytest.mark.parametrize("envrc", ["dotenv\n", "dotenv_if_exists .env.local\n",
                                   "source_env_if_exists .envrc.private\n"])
def test_what_an_allowed_envrc_loads_is_not_planted(ws, envrc: str) -> None:
    """`.envrc` with `dotenv` existed (the user's); the command writes the file it loads
    with `BASH_ENV=...`; the user's shell would export it on entering and run it at the
    next bash script. Here direnv's export is done by hand: `set -a; . FILE`."""
    root, marks, ctx = ws
    (root / ".envrc").write_text(envrc)
    loaded = envrc.split()[1] if len(envrc.split()) > 1 else ".env"
    script = root / "evil.sh"
    script.write_text(f"{RUN.format(marks=marks)}\n")
    run(ctx, f"printf 'BASH_ENV={script}\\nexport BASH_ENV={script}\\n' > {loaded}")
    if (root / loaded).exists():  # what direnv would do in the user's shell
        subprocess.run(["bash", "-c", f"set -a; . ./{loaded}; bash -c true"], cwd=root, check=False)
    assert sorted(os.listdir(marks)) == []
    assert not (root / loaded).exists()
