"""A job's file target (agent/cron/files.py) - the answer is written
by the unsandboxed scheduler, so the file is placed once at creation inside what the
creating session may write, and written with no link followed. A fake HOME with canary
files stands for the user's."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from agent.cron import files
from agent.errors import ConfigError
from agent.messages import ToolCall
from agent.tools.registry import ToolContext, ToolRegistry, ToolServices, discover
from frontend.cron import control
from frontend.cron.jobs import JobSpec, create, problem
from frontend.cron.run import run
from gateway.cron.deliver import Deliverer, attempt
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedModel

REGISTRY = ToolRegistry(t for t in discover() if t.name == "cronjob")
CHAT = "c" * 64
CANARY = "ssh-ed25519 AAAA canary@home\n"


@pytest.fixture
def user_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "user"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "authorized_keys").write_text(CANARY, encoding="utf-8")
    (home / ".bashrc").write_text("# canary bashrc\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def workspace(tmp_path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def _tool(home, cwd: Path, *, owner=None, yolo=True):
    home.store.create_session("s1", model="claude-sonnet-5", provider="anthropic",
                              system_prompt="x")
    ctx = ToolContext(session_id="s1", home=home.path, cwd=cwd, yolo=yolo,
                      approve=lambda *_: True, services=ToolServices(store=home.store, owner=owner))

    def call(deliver: str):
        return REGISTRY.dispatch(ToolCall("c1", "cronjob", json.dumps(
            {"action": "create", "schedule": "every 1h", "prompt": "p", "deliver": deliver})), ctx)
    return call


def _deliver(home, job, text="the answer"):
    claim = home.cron.claim(job, job.next_run, None, "w", 0.0)
    home.cron.finish(claim.run_id, job.id, "ok", output=text, delivery=job.deliver, now=1.0)
    row = {**home.cron.runs(job.id)[0], "job_name": job.name, "job_tz": "UTC",
           "job_owner": job.owner}
    ok = asyncio.run(attempt(Deliverer(home.settings(), None, lambda _p: None), home.cron, row))
    return ok, home.cron.runs(job.id)[0]


def test_a_yolo_session_cannot_make_a_job_write_the_users_dotfiles_or_hermes_env(
        home, user_home, workspace):
    call = _tool(home, workspace)
    for target in ("file:~/.bashrc", f"file:{home.path / '.env'}", "file:.envrc",
                   "file:.git/hooks/post-commit", f"file:{user_home / '.ssh' / 'authorized_keys'}",
                   "file:../elsewhere.md"):
        result = call(target)
        assert not result.ok and "no job was created" not in result.content, target
        assert any(w in result.content for w in ("secret location", "outside the folders",
                                                 "dot file")), result.content
    assert home.cron.jobs() == []
    assert call("file:reports/daily.md").ok  # inside the workspace: fine
    assert home.cron.jobs()[0].deliver == f"file:{os.path.realpath(workspace)}/reports/daily.md"


def test_a_gateway_tenant_cannot_target_the_operators_home(home, user_home, tmp_path):
    tenant = home.path / "workspaces" / "cccccccccccccccc"
    tenant.mkdir(parents=True)
    call = _tool(home, tenant, owner=CHAT, yolo=False)
    for target in ("file:~/.bashrc", f"file:{tmp_path / 'project' / 'x.md'}"):
        result = call(target)
        assert not result.ok, target
    assert home.cron.jobs() == []
    assert (user_home / ".bashrc").read_text(encoding="utf-8") == "# canary bashrc\n"
    assert call("file:reports/week.md").ok  # its own workspace (under HERMES_HOME): fine
    job = home.cron.jobs()[0]
    assert job.deliver == f"file:{os.path.realpath(tenant)}/reports/week.md"
    assert _deliver(home, job, "the week")[0]
    assert "the week" in (tenant / "reports" / "week.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("swap", ["file", "folder", "hardlink"])
def test_a_file_target_swapped_for_a_link_later_is_not_followed(home, user_home, workspace, swap):
    job = create(home.settings(), home.cron, JobSpec("every 1h", "p", "file:reports/out.md", "j"),
                 cwd=workspace)
    keys = user_home / ".ssh" / "authorized_keys"
    reports = workspace / "reports"
    if swap == "file":  # what any sandboxed command in the workspace may do
        reports.mkdir()
        (reports / "out.md").symlink_to(keys)
    elif swap == "folder":
        reports.symlink_to(user_home / ".ssh")
        (user_home / ".ssh" / "out.md").symlink_to(keys)
    else:
        reports.mkdir()
        try:
            os.link(keys, reports / "out.md")
        except OSError:
            pytest.skip("no hard links across these folders")
    ok, row = _deliver(home, job, "ssh-rsa ATTACKER")
    assert not ok and "failed" in row["error"] and row["output"] == "ssh-rsa ATTACKER"
    assert keys.read_text(encoding="utf-8") == CANARY


def test_a_plain_file_target_is_appended_to(home, workspace):
    job = create(home.settings(), home.cron, JobSpec("every 1h", "p", "file:reports/out.md", "j"),
                 cwd=workspace)
    assert _deliver(home, job, "first")[0]
    out = workspace / "reports" / "out.md"
    assert "first" in out.read_text(encoding="utf-8") and (out.stat().st_mode & 0o777) == 0o600


def test_a_job_stored_before_the_rules_is_skipped_without_a_model_call(home, user_home, tmp_path):
    for name, target in (("rc", f"file:{user_home / '.bashrc'}"),
                         ("env", f"file:{home.path / '.env'}")):
        job = home.cron.add({"name": name, "schedule": "every 1h", "tz": "UTC", "prompt": "p",
                             "deliver": target, "provider": "anthropic",
                             "model": home.settings().get("model")})
        assert problem(home.settings(), job) is not None
        model = ScriptedModel(Reply("never"))
        result = run(home.settings(), home.store, control.manual(home.cron, job, "t"),
                     lend=lambda _s, m=model: m)
        assert result.status == "skipped" and model.requests == []


def test_place_resolves_once_to_a_link_free_path(tmp_path, home):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real)
    placed = files.place("alias/out.md", cwd=tmp_path, roots=(tmp_path,), hermes_home=home.path)
    assert placed == f"{os.path.realpath(real)}/out.md"
    with pytest.raises(ConfigError, match="outside the folders"):
        files.place("/etc/cron.d/x", cwd=tmp_path, roots=(tmp_path,), hermes_home=home.path)
