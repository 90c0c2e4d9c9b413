"""A deny on `git push` holds through the real terminal tool under --yolo: a real
repository with a bare remote; each way of writing the push leaves the remote empty,
while an ordinary command still runs (and, as a control, a push without the rule lands)."""

from __future__ import annotations

import subprocess
from dataclasses import replace

import pytest

from agent.permissions.rules import parse

pytestmark = pytest.mark.wire

WAYS = ["true && git push origin main", " git push origin main", "git  push origin main",
        "git -C . push origin main", "cd . && git push origin main", "(git push origin main)",
        'bash -c "git push origin main"', "$(git push origin main)"]


def _git(cwd, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          timeout=30).stdout


def _remote_heads(remote) -> str:
    return _git(remote, "for-each-ref", "refs/heads")


def test_denied_push_never_reaches_the_remote_under_yolo(call, ctx):
    remote = ctx.cwd / "remote.git"  # inside the workspace: the sandbox lets the push write there
    _git(ctx.cwd, "init", "-q", "--bare", str(remote))
    work = ctx.cwd
    _git(work, "init", "-q", "-b", "main")
    _git(work, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x")
    _git(work, "remote", "add", "origin", str(remote))
    denied = replace(ctx, permissions=parse({"deny": ["terminal(git push*)"]}, "config.yaml"), yolo=True)
    for line in WAYS:
        result = call("terminal", denied, command=line)
        assert not result.ok and "deny `terminal(git push*)`" in result.content, line
        assert _remote_heads(remote) == "", line
    assert call("terminal", denied, command="git status --short && echo fine").ok
    pushed = call("terminal", replace(ctx, yolo=True), command="true && git push -q origin main")
    assert pushed.ok and "refs/heads/main" in _remote_heads(remote)  # the setup can push
