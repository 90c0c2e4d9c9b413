"""The agent's cronjob tool (through the registry: the user approves what is scheduled;
refused with nobody to ask; --yolo; a chat sees its own jobs), /cron (the shared
command), delivery targets, and delivery retries that end recorded, never lost."""

from __future__ import annotations

import asyncio
import json

import pytest

from agent.cron import targets
from agent.messages import ToolCall
from agent.tools.registry import ToolContext, ToolRegistry, ToolServices, discover
from frontend import commands as shared
from frontend.cron.jobs import JobSpec, create
from gateway.cron.deliver import MAX_ATTEMPTS, Deliverer, attempt
from tests.fakes.script import Reply
from tests.fakes.scripted import ScriptedModel
from tests.helpers import scripted_agent

REGISTRY = ToolRegistry(t for t in discover() if t.name == "cronjob")
CHAT = "c" * 64  # a chat owner id


def _ctx(home, session_id, *, approve=None, yolo=False, owner=None) -> ToolContext:
    return ToolContext(session_id=session_id, home=home.path, cwd=home.path, yolo=yolo,
                       approve=approve, services=ToolServices(store=home.store, owner=owner))


def _session(home) -> str:
    home.store.create_session("s1", model="claude-sonnet-5", provider="anthropic",
                              system_prompt="x")
    return "s1"


def _call(ctx, **args):
    return REGISTRY.dispatch(ToolCall("c1", "cronjob", json.dumps(args)), ctx)


def test_create_asks_with_schedule_and_prompt_and_pins_the_session_model(home):
    asked = []
    ctx = _ctx(home, _session(home), approve=lambda what, why: asked.append(what) or True,
               owner=CHAT)
    result = _call(ctx, action="create", schedule="0 8 * * 1-5", prompt="Summarise issues.",
                   name="digest")
    assert result.ok, result.content
    assert "0 8 * * 1-5" in asked[0] and "Summarise issues." in asked[0]
    job = home.cron.get("digest")
    assert (job.model, job.provider, job.owner) == ("claude-sonnet-5", "anthropic", CHAT)
    assert job.deliver == f"origin:{CHAT}"  # the chat it was asked in


def test_declined_or_nobody_to_ask_creates_nothing_and_yolo_skips_the_question(home):
    session = _session(home)
    declined = _call(_ctx(home, session, approve=lambda *_: False), action="create",
                     schedule="every 1h", prompt="p")
    alone = _call(_ctx(home, session), action="create", schedule="every 1h", prompt="p")
    assert not declined.ok and "declined" in declined.content
    assert not alone.ok and "hermes cron add" in alone.content
    assert home.cron.jobs() == []
    done = _call(_ctx(home, session, yolo=True), action="create", schedule="in 2h", prompt="p")
    assert done.ok and home.cron.jobs()[0].deliver.startswith("file:")  # the REPL's origin


def test_bad_schedules_and_targets_are_the_models_to_read(home):
    ctx = _ctx(home, _session(home), yolo=True)
    bad = _call(ctx, action="create", schedule="every tuesday", prompt="p")
    assert not bad.ok and "not a duration" in bad.content
    slack = _call(ctx, action="create", schedule="every 1h", prompt="p", deliver="slack:C0123ABCD")
    assert not slack.ok and "slack delivery needs the gateway's Slack app" in slack.content


def test_a_chat_target_is_accepted_once_its_platform_is_configured(home, monkeypatch):
    ctx = _ctx(home, _session(home), yolo=True)
    for platform, target in (("slack", "slack:C0123ABCD"), ("discord", "discord:300000000000000001")):
        refused = _call(ctx, action="create", schedule="every 1h", prompt="p", deliver=target)
        assert not refused.ok and f"{platform} delivery needs" in refused.content
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    monkeypatch.setenv("SLACK_APP_TOKEN", "xapp-1")
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "d")
    assert targets.ready() == frozenset({"slack", "discord"})
    for target in ("slack:C0123ABCD", "discord:300000000000000001"):
        assert _call(ctx, action="create", schedule="every 1h", prompt="p", deliver=target).ok
    assert sorted(j.deliver for j in home.cron.jobs()) == ["discord:300000000000000001",
                                                           "slack:C0123ABCD"]
    monkeypatch.delenv("SLACK_APP_TOKEN")  # Slack starts with both tokens only
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "t")
    assert targets.ready() == frozenset({"discord", "telegram"})
    assert targets.ready(lambda platform: False) == frozenset({"discord"})  # no gateway.telegram


def test_a_chat_lists_and_removes_only_its_own_jobs(home, tmp_path):
    create(home.settings(), home.cron, JobSpec("every 1h", "operator's", "none", "mine"),
           cwd=tmp_path)
    session = _session(home)
    chat = _ctx(home, session, yolo=True, owner=CHAT)
    assert _call(chat, action="create", schedule="every 1h", prompt="p", name="theirs").ok
    listed = _call(chat, action="list")
    assert "theirs" in listed.content and "mine" not in listed.content
    assert not _call(chat, action="remove", name="mine").ok
    assert _call(chat, action="remove", name="theirs").ok
    assert [j.name for j in home.cron.jobs()] == ["mine"]


def test_slash_cron_lists_and_removes(home, tmp_path):
    create(home.settings(), home.cron, JobSpec("0 8 * * *", "digest", "none", "digest"),
           cwd=tmp_path)
    agent = scripted_agent(ScriptedModel(Reply("x")), home.path, tmp_path)
    agent.store = home.store
    listed = shared.run(shared.Handle(agent), "cron", "")
    assert "digest" in listed.text and "next" in listed.text and "never ran" in listed.text
    wrong = shared.run(shared.Handle(agent), "cron", "remove nope")
    assert wrong.level == "error" and "no job 'nope'" in wrong.text
    done = shared.run(shared.Handle(agent), "cron", "remove digest")
    assert "removed job digest" in done.text and home.cron.jobs() == []


@pytest.mark.parametrize(("target", "words"), [
    ("none", None), ("file:/tmp/x.md", None), ("file:rel.md", "not an absolute path"),
    ("telegram:abc", "not a numeric"), ("telegram:123", "needs the gateway's bot"),
    ("discord:1", "discord delivery needs the gateway's bot"),
    ("discord:general", "not a numeric Discord channel id"),
    ("slack:C0123ABCD", "slack delivery needs"), ("slack:#general", "not a Slack channel id"),
    ("pigeon:1", "unknown delivery target"),
])
def test_targets(target, words):
    why = targets.problem(target, frozenset())
    assert (why is None) if words is None else (words in why)
    every = frozenset({"telegram", "slack", "discord"})
    assert all(targets.problem(t, every) is None for t in ("telegram:123", "slack:C0123ABCD",
                                                            "slack:DU0OWNER01", "discord:42"))


def test_a_failed_delivery_is_retried_then_recorded_with_the_text_kept(home, tmp_path):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder", encoding="utf-8")
    job = create(home.settings(), home.cron, JobSpec("every 1h", "p", "none", "j"), cwd=tmp_path)
    claim = home.cron.claim(job, job.next_run, None, "w", 0.0)
    home.cron.finish(claim.run_id, job.id, "ok", output="the answer",
                     delivery=f"file:{blocked}/out.md", now=1.0)
    deliverer = Deliverer(home.settings(), None, lambda _platform: None)

    def row():
        found = home.cron.runs(job.id)[0]
        return {**found, "job_name": "j", "job_tz": "UTC"}

    for _ in range(MAX_ATTEMPTS + 2):  # retries stop at the bound
        asyncio.run(attempt(deliverer, home.cron, row()))
    final = home.cron.runs(job.id)[0]
    assert final["attempts"] == MAX_ATTEMPTS and not final["delivered"]
    assert f"failed ({MAX_ATTEMPTS}/{MAX_ATTEMPTS})" in final["error"]
    assert final["output"] == "the answer"


def test_a_chat_answer_whose_adapter_is_not_running_here_waits_for_another_attempt(home, tmp_path):
    job = create(home.settings(), home.cron, JobSpec("every 1h", "p", "none", "j"), cwd=tmp_path)
    claim = home.cron.claim(job, job.next_run, None, "w", 0.0)
    home.cron.finish(claim.run_id, job.id, "ok", output="the answer",
                     delivery="slack:C0123ABCD", now=1.0)
    asked: list[str] = []
    deliverer = Deliverer(home.settings(), None, lambda platform: asked.append(platform))
    run = {**home.cron.runs(job.id)[0], "job_name": "j", "job_tz": "UTC"}
    assert not asyncio.run(attempt(deliverer, home.cron, run))
    after = home.cron.runs(job.id)[0]
    assert asked == ["slack"] and after["attempts"] == 1 and not after["delivered"]
    assert "not running on this worker" in after["error"] and after["output"] == "the answer"
