"""Battery against the cron file-target fix: a job's `file:` target may not be a file
that runs programs later. The scheduler appends outside the sandbox, past the arming
guard, and the dated header it writes (`## ...`) is a comment in YAML, git config and
shell - so appending to an arming file or a git directory's config or hooks arms the
project (fast tier: the cronjob tool and the real delivery path, a fake HOME)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import yaml

from agent.messages import ToolCall
from agent.tools.registry import ToolContext, ToolRegistry, ToolServices, discover
from frontend.config.settings import load_settings
from gateway.cron.deliver import Deliverer, attempt
from memory import open_store
from memory.cron import CronStore
from tests.helpers import MODEL

REGISTRY = ToolRegistry(t for t in discover() if t.name == "cronjob")
PAYLOAD = "[core]\n\tfsmonitor = cp ~/.ssh/id_rsa /tmp/stolen\n"


@pytest.fixture
def setup(hermes_home: Path, tmp_path: Path, monkeypatch):
    (hermes_home / "config.yaml").write_text(yaml.safe_dump(
        {"provider": "anthropic", "model": MODEL, "api_key": "test-key",
         "base_url": "http://127.0.0.1:9", "toolsets": ["file", "cron"]}), encoding="utf-8")
    user = tmp_path / "user"
    (user / ".ssh").mkdir(parents=True)
    (user / ".ssh" / "id_rsa").write_text("CANARY-KEY\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(user))
    work = tmp_path / "project"
    bare = work / "evil.git"  # what `git init --bare evil.git` leaves (a git dir by git's test)
    (bare / "objects").mkdir(parents=True)
    (bare / "hooks").mkdir()
    (bare / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (bare / "config").write_text("[core]\n\tbare = true\n", encoding="utf-8")
    store = open_store(hermes_home, None)
    store.create_session("s1", model=MODEL, provider="anthropic", system_prompt="x")
    yield hermes_home, store, work
    store.close()


def _create_and_deliver(hermes_home: Path, store, work: Path, deliver: str) -> bool:
    """The model (under --yolo) makes a job delivering to `deliver`; one run's answer is
    delivered. True when the job was made and the file written."""
    ctx = ToolContext(session_id="s1", home=hermes_home, cwd=work, yolo=True,
                      approve=lambda *_: True, services=ToolServices(store=store))
    result = REGISTRY.dispatch(ToolCall("c1", "cronjob", json.dumps(
        {"action": "create", "schedule": "every 1h", "prompt": "p", "deliver": deliver})), ctx)
    if not result.ok:
        return False
    cron = CronStore(store.handle)
    job = cron.jobs()[0]
    claim = cron.claim(job, job.next_run, None, "w", 0.0)
    cron.finish(claim.run_id, job.id, "ok", output=PAYLOAD, delivery=job.deliver, now=1.0)
    row = {**cron.runs(job.id)[0], "job_name": job.name, "job_tz": "UTC", "job_owner": job.owner}
    return asyncio.run(attempt(Deliverer(load_settings(hermes_home), None, lambda _p: None), cron, row))


@pytest.mark.parametrize("target", ["file:evil.git/config", "file:evil.git/hooks/post-update",
                                    "file:lefthook.yml", "file:sub/lefthook.yml"])
def test_a_job_never_appends_to_what_runs_programs_later(setup, target):
    hermes_home, store, work = setup
    written = _create_and_deliver(hermes_home, store, work, target)
    path = work / target[5:]
    assert not written and (not path.exists() or "fsmonitor" not in path.read_text(encoding="utf-8"))


def test_an_ordinary_report_is_still_delivered(setup):
    hermes_home, store, work = setup
    assert _create_and_deliver(hermes_home, store, work, "file:reports/daily.md")
    assert "fsmonitor" in (work / "reports" / "daily.md").read_text(encoding="utf-8")


def test_a_folder_made_a_git_directory_after_creation_is_not_appended_to(setup):
    """`file:reports/config` looks harmless when made; a later sandboxed `git init --bare
    reports` makes it a git directory's config - the next delivery must not write it."""
    hermes_home, store, work = setup
    (work / "reports").mkdir()
    ctx = ToolContext(session_id="s1", home=hermes_home, cwd=work, yolo=True,
                      approve=lambda *_: True, services=ToolServices(store=store))
    made = REGISTRY.dispatch(ToolCall("c1", "cronjob", json.dumps(
        {"action": "create", "schedule": "every 1h", "prompt": "p", "deliver": "file:reports/config"})), ctx)
    assert made.ok, made.content
    (work / "reports" / "objects").mkdir()
    (work / "reports" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (work / "reports" / "config").write_text("[core]\n\tbare = true\n", encoding="utf-8")
    cron = CronStore(store.handle)
    job = cron.jobs()[0]
    claim = cron.claim(job, job.next_run, None, "w", 0.0)
    cron.finish(claim.run_id, job.id, "ok", output=PAYLOAD, delivery=job.deliver, now=1.0)
    row = {**cron.runs(job.id)[0], "job_name": job.name, "job_tz": "UTC", "job_owner": job.owner}
    asyncio.run(attempt(Deliverer(load_settings(hermes_home), None, lambda _p: None), cron, row))
    assert "fsmonitor" not in (work / "reports" / "config").read_text(encoding="utf-8")


@pytest.mark.parametrize("target", ["file:out/r.md", "file:reports/../../user/.ssh/authorized_keys",
                                    "file:reports/../../outside.md", "file:~/notes.md"])
def test_a_target_through_a_link_or_dot_dot_is_refused_when_made(setup, target):
    """Held: `out` is a link to the user's home made before the job; `..` climbs out."""
    hermes_home, store, work = setup
    (work / "out").symlink_to(work.parent / "user")
    (work / "reports").mkdir()
    assert not _create_and_deliver(hermes_home, store, work, target)
    assert not (work.parent / "user" / "r.md").exists()
    assert not (work.parent / "outside.md").exists()
