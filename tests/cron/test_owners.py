"""A job is a session that runs later, as its owner: a
gateway tenant's job runs in that tenant's scope - its memory, its sessions, its
workspace, the gateway's sandbox, its spend and rate limits, the store's owner column -
and delivers only to its own chat. In-process: the scripted model, a fake HOME."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent.messages import ToolCall as Call
from agent.tools.registry import ToolContext, ToolRegistry, ToolServices, discover
from frontend.cron import control
from frontend.cron.jobs import JobSpec, create, problem
from frontend.cron.run import config_for, run
from gateway.cron.deliver import Deliverer, attempt
from gateway.cron.scheduler import Scheduler
from memory.tenants import notes_dir
from tests.fakes.script import Reply, ToolCall
from tests.fakes.scripted import ScriptedModel

TENANT = "a" * 64
OTHER = "b" * 64
REGISTRY = ToolRegistry(t for t in discover() if t.name == "cronjob")


def _tenant_job(home, tmp_path, **spec):
    fields = {"schedule": "every 1h", "prompt": "Look back at my week.", "deliver": "none",
              "name": "weekly", "tz": "UTC", "owner": TENANT, **spec}
    return create(home.settings(), home.cron, JobSpec(**fields), cwd=tmp_path)


def test_a_tenants_job_runs_as_the_tenant_not_the_operator(home, tmp_path):
    home.config["toolsets"] = ["file", "cron", "search", "memory"]
    home.write()
    operator_notes = notes_dir(home.path, None)
    operator_notes.mkdir(parents=True)
    (operator_notes / "MEMORY.md").write_text("OPERATOR-CANARY memory\n", encoding="utf-8")
    home.store.create_session("other-1", model="m", provider="p", system_prompt="s", owner=OTHER)
    home.store.append_message("other-1", role="user", content="zebra secret of another tenant")
    job = _tenant_job(home, tmp_path)
    model = ScriptedModel(Reply(tool_calls=[ToolCall("session_search", {"query": "zebra"})]),
                          Reply("nothing this week"))
    result = run(home.settings(), home.store, control.manual(home.cron, job, "t"),
                 lend=lambda _s: model)
    assert result.status == "ok", result.error
    first, second = model.requests
    assert "OPERATOR-CANARY" not in json.dumps(first.system, default=str)
    found = json.dumps([m.content for m in second.messages], default=str)
    assert "zebra secret" not in found  # another tenant's session is not its to search
    row = home.store.get_session(result.session_id)
    assert (row["source"], row["owner"]) == ("cron", TENANT)  # its spend is the tenant's


def test_a_tenants_job_has_a_gateway_sessions_sandbox_and_workspace(home, tmp_path):
    config = config_for(home.settings(), _tenant_job(home, tmp_path), None)
    assert config.owner == TENANT and config.yolo is False
    assert config.cwd == home.path / "workspaces" / TENANT[:16]
    assert config.sandbox.enabled and not config.sandbox.home_defaults  # no ~/.gitconfig
    assert config.sandbox.network == "off"  # the gateway's default, not the REPL's
    operator = config_for(home.settings(), create(home.settings(), home.cron, JobSpec(
        "every 1h", "p", "none", "mine", tz="UTC"), cwd=tmp_path), None)
    assert operator.owner is None and operator.sandbox.home_defaults


def test_a_tenants_run_waits_for_its_owners_limits(home, tmp_path):
    job = _tenant_job(home, tmp_path)
    model = ScriptedModel(Reply("never"))
    settings = home.settings()
    asked: list[str] = []
    scheduler = Scheduler(settings, home.store, "w1", Deliverer(settings, None, lambda _p: None),
                          lend=lambda _s: model,
                          admit=lambda owner: asked.append(owner) or "daily limit reached")
    claim = home.cron.claim(job, job.next_run, None, "w1", 0.0)
    asyncio.run(scheduler._run(claim, 0.0))
    assert asked == [TENANT] and model.requests == []
    last = home.cron.runs(job.id)[0]
    assert last["status"] == "skipped" and "daily limit reached" in last["error"]


@pytest.mark.parametrize("target", [f"origin:{OTHER}", "telegram:4242", "slack:C0OTHER01",
                                    "discord:300000000000000001"])
def test_a_tenant_delivers_only_to_its_own_chat(home, tmp_path, monkeypatch, target):
    for name in ("TELEGRAM_BOT_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "DISCORD_BOT_TOKEN"):
        monkeypatch.setenv(name, "t")
    home.store.create_session("s1", model="claude-sonnet-5", provider="anthropic",
                              system_prompt="x")
    ctx = ToolContext(session_id="s1", home=home.path, cwd=tmp_path, approve=lambda *_: True,
                      services=ToolServices(store=home.store, owner=TENANT))
    made = REGISTRY.dispatch(Call("c1", "cronjob", json.dumps(
        {"action": "create", "schedule": "every 1h", "prompt": "p", "deliver": target})), ctx)
    assert not made.ok and "own chat" in made.content
    assert home.cron.jobs() == []
    # a job stored before the rule: skipped before its run, refused at delivery
    job = home.cron.add({"name": "old", "schedule": "every 1h", "tz": "UTC", "prompt": "p",
                         "deliver": target, "provider": "anthropic",
                         "model": home.settings().get("model"), "owner": TENANT})
    assert "own" in (problem(home.settings(), job) or "")
    sent: list[str] = []

    class Adapter:
        async def deliver(self, chat: str, text: str) -> None:
            sent.append(chat)

    claim = home.cron.claim(job, 0, None, "w", 0.0, manual=True)
    home.cron.finish(claim.run_id, job.id, "ok", output="hello", delivery=target, now=1.0)
    row = {**home.cron.runs(job.id)[0], "job_name": "old", "job_tz": "UTC", "job_owner": TENANT}
    ok = asyncio.run(attempt(Deliverer(home.settings(), None, lambda _p: Adapter()), home.cron, row))
    assert not ok and sent == [] and "refused" in home.cron.runs(job.id)[0]["error"]


def test_the_approval_says_the_target_in_words_and_what_each_run_may_do(home, tmp_path):
    home.store.create_session("s1", model="claude-sonnet-5", provider="anthropic",
                              system_prompt="x")
    asked: list[str] = []
    ctx = ToolContext(session_id="s1", home=home.path, cwd=tmp_path,
                      approve=lambda what, _why: asked.append(what) or True,
                      services=ToolServices(store=home.store, owner=TENANT))
    made = REGISTRY.dispatch(Call("c1", "cronjob", json.dumps(
        {"action": "create", "schedule": "every 1h", "prompt": "p"})), ctx)
    assert made.ok, made.content
    assert "this chat" in asked[0] and TENANT not in asked[0]  # never the owner's hash
    assert "never --yolo" in asked[0] and "sandboxed" in asked[0]
    assert home.cron.get(made.content.split()[2]).deliver == f"origin:{TENANT}"
    from frontend.cron import listing  # /cron and `hermes cron list` say it in words too

    shown = listing.render(home.cron, home.cron.jobs())
    assert "-> this chat" in shown and TENANT not in shown


def test_a_job_never_runs_with_more_sandbox_than_the_session_that_made_it(home, tmp_path):
    """Made from a sandboxed session with no network; the config later loosened: its runs
    stay sandboxed with no network (never yolo either, whatever the REPL had)."""
    from agent.sandbox.policy import SandboxSettings

    home.store.create_session("s1", model="claude-sonnet-5", provider="anthropic",
                              system_prompt="x")
    ctx = ToolContext(session_id="s1", home=home.path, cwd=tmp_path, yolo=True,
                      sandbox=SandboxSettings(enabled=True, network="off"),
                      services=ToolServices(store=home.store))
    made = REGISTRY.dispatch(Call("c1", "cronjob", json.dumps(
        {"action": "create", "schedule": "every 1h", "prompt": "p", "name": "boxed"})), ctx)
    assert made.ok and "never --yolo" in made.content
    home.config.update(yolo=True, sandbox={"enabled": False, "network": "on"})
    home.write()
    config = config_for(home.settings(), home.cron.get("boxed"), None)
    assert config.yolo is False
    assert config.sandbox.enabled and config.sandbox.network == "off"


def test_a_tenants_old_job_writing_outside_its_workspace_is_refused(home, tmp_path):
    outside = tmp_path / "operator-notes.md"
    outside.write_text("operator's\n", encoding="utf-8")
    job = home.cron.add({"name": "old", "schedule": "every 1h", "tz": "UTC", "prompt": "p",
                         "deliver": f"file:{outside}", "provider": "anthropic",
                         "model": home.settings().get("model"), "owner": TENANT})
    assert "outside its owner's workspace" in (problem(home.settings(), job) or "")
    claim = home.cron.claim(job, 0, None, "w", 0.0, manual=True)
    home.cron.finish(claim.run_id, job.id, "ok", output="hello", delivery=job.deliver, now=1.0)
    row = {**home.cron.runs(job.id)[0], "job_name": "old", "job_tz": "UTC", "job_owner": TENANT}
    assert not asyncio.run(attempt(Deliverer(home.settings(), None, lambda _p: None), home.cron, row))
    assert outside.read_text(encoding="utf-8") == "operator's\n"
