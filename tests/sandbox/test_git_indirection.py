"""Nothing a sandboxed command plants runs later on the host: six indirections through
git and `.hermes` (agent/sandbox/protect.py mounts + agent/sandbox/arming.py), each
followed by the user's own `git status` and `git commit` outside the sandbox, which must
run nothing; and git still works inside the sandbox (commit, checkout, fetch)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.backend import backend
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext
from tests.sandbox.harness import run

pytestmark = [pytest.mark.wire,
              pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}"),
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]

EVIL = "printf '#!/bin/sh\\ntouch {marks}/ran-$$\\n' > evil.sh && chmod +x evil.sh"
GITDIR_COPY = ("mkdir gd && cp -a .git/. gd/ && mkdir -p eh && cp evil.sh eh/pre-commit && "
               "printf '[core]\\n\\tfsmonitor = {ws}/evil.sh\\n\\thooksPath = {ws}/eh\\n' >> gd/config")
ATTACKS = {
    "gitdir-file": [GITDIR_COPY, "mv .git .git-old; printf 'gitdir: gd\\n' > .git"],
    "git-symlink": [GITDIR_COPY, "mv .git .git-old; ln -s gd .git"],
    "worktree-config": ["git config extensions.worktreeConfig true; "
                        "printf '[core]\\n\\tfsmonitor = {ws}/evil.sh\\n' > .git/config.worktree"],
    "hooks-symlink": ["mkdir -p eh && cp evil.sh eh/pre-commit && cp evil.sh eh/post-commit",
                      "mv .git/hooks .git/hooks-old; ln -s ../eh .git/hooks"],
    "submodule-config": ["printf '[core]\\n\\tfsmonitor = {ws}/evil.sh\\n' >> .git/modules/lib/config"],
    "hermes-symlink": ["mkdir h2 && printf 'hooks:\\n  UserPromptSubmit:\\n    - command: {ws}/evil.sh\\n'"
                       " > h2/config.yaml",
                       "mv .hermes .hermes-old; ln -s h2 .hermes"],
}


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=u@x", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=30, check=False)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, ToolContext]:
    """A repository with a commit, a submodule and a trusted-looking `.hermes/`, in a
    workspace under a fake $HOME; a bare remote to fetch from."""
    home, marks = tmp_path / "home", tmp_path / "marks"
    ws, lib, remote = home / "project", tmp_path / "lib", home / "remote.git"
    for d in (home, marks):
        d.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HERMES_HOME", str(home / ".hermes"))
    (home / ".hermes").mkdir()
    for repo in (lib, ws):
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        (repo / "a.txt").write_text("a\n")
        _git(repo, "add", "a.txt")
        assert _git(repo, "commit", "-qm", "a").returncode == 0
    (ws / ".hermes").mkdir()
    (ws / ".hermes" / "config.yaml").write_text("permissions:\n  allow: []\n")
    assert _git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib),
                "lib").returncode == 0
    assert _git(ws, "commit", "-qm", "sub").returncode == 0
    subprocess.run(["git", "clone", "-q", "--bare", str(ws), str(remote)], check=True)
    assert _git(ws, "remote", "add", "origin", str(remote)).returncode == 0
    ctx = ToolContext(session_id="s", home=home / ".hermes", cwd=ws, yolo=True,  # the remote
                      sandbox=SandboxSettings(home_allow=(str(remote),)))  # shown in the home
    yield ws, marks, ctx
    terminal.release_processes(ctx.state)


def _host_runs_nothing(ws: Path, marks: Path) -> list[str]:
    """The user's own git status and commit, outside the sandbox: what ran."""
    (ws / "b.txt").write_text("b\n")
    _git(ws, "status")
    _git(ws, "add", "b.txt")
    _git(ws, "commit", "-qm", "b")
    return sorted(os.listdir(marks))


@pytest.mark.parametrize("case", list(ATTACKS))
def test_a_planted_indirection_runs_nothing_on_the_host(project, case: str) -> None:
    ws, marks, ctx = project
    hermes_before = (ws / ".hermes" / "config.yaml").read_bytes()
    run(ctx, EVIL.format(marks=marks))
    for step in ATTACKS[case]:
        run(ctx, step.format(ws=ws, marks=marks))
    assert _host_runs_nothing(ws, marks) == []
    assert (ws / ".git").is_dir() and not (ws / ".git").is_symlink()
    assert not (ws / ".hermes").is_symlink()
    assert (ws / ".hermes" / "config.yaml").read_bytes() == hermes_before


def test_git_still_works_inside_the_sandbox(project) -> None:
    ws, marks, ctx = project
    out = run(ctx, "echo c > c.txt && git add c.txt && "
                    "git -c user.name=u -c user.email=u@x commit -qm c && "
                    "git checkout -q -b topic && git checkout -q main && "
                    "git fetch -q origin && git log --oneline | wc -l && git status --short")
    assert "[exit code 0]" in out, out
    assert _git(ws, "log", "--oneline").stdout.count("\n") == 3
    assert _git(ws, "rev-parse", "--verify", "-q", "refs/remotes/origin/main").returncode == 0
    assert "put back" not in out


FSMON = "printf '[core]\\n\\tfsmonitor = {ws}/evil.sh\\n' >> "
INIT_ATTACKS = {  # a workspace with no .git: what `git init` in the sandbox may leave
    "config": ["git init -q && git config core.fsmonitor {ws}/evil.sh && "
               "git config core.hooksPath {ws}/eh && mkdir eh && cp evil.sh eh/pre-commit"],
    "hook": ["git init -q && cp evil.sh .git/hooks/pre-commit && cp evil.sh .git/hooks/post-commit"],
    "config-later": ["git init -q", "git config core.fsmonitor {ws}/evil.sh"],
    "worktree-config": ["git init -q", "git config extensions.worktreeConfig true; "
                        + FSMON + ".git/config.worktree"],
    "commondir": ["git init -q && mkdir cd && cp -a .git/. cd/ && " + FSMON + "cd/config",
                  "printf '../cd\\n' > .git/commondir"],
    "gitdir-file": ["git init -q --bare gd && git -C gd config core.bare false && " + FSMON + "gd/config && printf 'gitdir: gd\\n' > .git"],
    "hooks-link": ["git init -q", "mkdir eh && cp evil.sh eh/pre-commit && rm -rf .git/hooks && "
                   "ln -s ../eh .git/hooks"],
}


@pytest.mark.parametrize("case", list(INIT_ATTACKS))
def test_a_repository_made_in_the_sandbox_runs_nothing_on_the_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    home, marks = tmp_path / "home", tmp_path / "marks"
    ws = home / "project"
    for d in (ws, marks, home / ".hermes"):
        d.mkdir(parents=True)
    for key, value in (("HOME", home), ("HERMES_HOME", home / ".hermes"),
                       ("GIT_CONFIG_NOSYSTEM", "1"), ("GIT_CEILING_DIRECTORIES", tmp_path)):
        monkeypatch.setenv(key, str(value))
    ctx = ToolContext(session_id="s", home=home / ".hermes", cwd=ws, yolo=True)
    try:
        run(ctx, EVIL.format(marks=marks))
        for step in INIT_ATTACKS[case]:
            run(ctx, step.format(ws=ws, marks=marks))
        assert _host_runs_nothing(ws, marks) == []
        made = run(ctx, "git status --short >/dev/null && echo still-a-repo")
        assert case == "gitdir-file" or "still-a-repo" in made, made
    finally:
        terminal.release_processes(ctx.state)


@pytest.mark.parametrize("step", ["cp evil.sh .husky/post-commit",
                                  "cat evil.sh > .husky/pre-commit",
                                  "printf '[core]\\n\\tfsmonitor = {ws}/evil.sh\\n' >> extra.gitconfig"])
def test_what_the_users_config_points_at_is_protected_too(project, step: str) -> None:
    """husky's `core.hooksPath = .husky` and an `include.path` into the project: the
    files git runs or reads from there are read-only inside the sandbox."""
    ws, marks, ctx = project
    (ws / ".husky").mkdir()
    (ws / ".husky" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (ws / ".husky" / "pre-commit").chmod(0o755)
    (ws / "extra.gitconfig").write_text("[user]\n\tname = u\n")
    assert _git(ws, "config", "core.hooksPath", ".husky").returncode == 0
    assert _git(ws, "config", "include.path", "../extra.gitconfig").returncode == 0
    run(ctx, EVIL.format(marks=marks))
    run(ctx, step.format(ws=ws))
    assert _host_runs_nothing(ws, marks) == []
