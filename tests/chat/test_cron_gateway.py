"""Scheduled jobs fired by a running gateway (wire tier: the real app on uvicorn, the fake
provider, the fake Bot API): two `* * * * *` jobs (one to a file, one to a Telegram
chat) and one the agent created from a chat after the owner approved it; the clock is
the scheduler's injectable one, so no test waits for a real minute.

Asserted on what the fake servers recorded: each fire runs once, tools and system bytes
are identical across runs, the second run reads >= 95% of what the first wrote; a
gateway stopped across two boundaries runs one catch-up per job."""

from __future__ import annotations

import json

import pytest

from frontend.config.settings import load_settings
from frontend.cron.jobs import JobSpec, create
from memory import open_store
from memory.cron import CronStore
from tests.chat.cron_clock import Clock, drive, finished, runs
from tests.fakes import Reply, ToolCall
from tests.helpers import OWNER

pytestmark = pytest.mark.wire

DIGEST = "DIGEST: summarise the overnight issues in three lines."
PING = "PING: say whether the build is green."
WATER = "WATER: remind the user to drink water."


def _requests_of(fake, marker: str) -> list:
    return [r for r in fake.requests if r.api == "anthropic"
            and marker in json.dumps(r.body.get("messages", [])[:1])]


def _responder(record):
    first = json.dumps(record.body.get("messages", [])[:1])
    if "DIGEST" in first:
        return Reply("Three issues: login, cache, docs.")
    if "PING" in first:
        return Reply("The build is green.")
    if "WATER" in first:
        return Reply("Time to drink some water.")
    return None


def test_jobs_fire_once_per_minute_read_the_cache_and_catch_up_once(chats, tmp_path):
    chats.config["toolsets"] = ["file", "cron"]
    chats.fake.responder = _responder
    out = tmp_path / "digest.md"
    clock = Clock()
    server = chats.start()
    scheduler = drive(server, clock)
    settings = load_settings(chats.home)
    with open_store(chats.home, None) as store:
        cron = CronStore(store.handle)
        create(settings, cron, JobSpec("* * * * *", DIGEST, f"file:{out}", "digest", tz="UTC"),
               cwd=tmp_path, now=clock.now)
        create(settings, cron, JobSpec("* * * * *", PING, f"telegram:{OWNER}", "ping", tz="UTC"),
               cwd=tmp_path, now=clock.now)
    # the agent schedules from the chat; the owner sees schedule and prompt and approves
    chats.fake.script(Reply(tool_calls=[ToolCall("cronjob", {
        "action": "create", "schedule": "* * * * *", "prompt": WATER, "name": "water"})]),
        Reply("Scheduled: every minute."))
    chats.tg.message(OWNER, OWNER, "remind me every minute to drink water")
    question = chats.tg.wait_for(lambda: chats.tg.keyboards(OWNER), what="the question")[0]
    assert "* * * * *" in question["text"] and WATER in question["text"]
    chats.tg.press(OWNER, OWNER, question["message_id"],
                   question["reply_markup"]["inline_keyboard"][0][0]["callback_data"])
    chats.turns(server, 1)
    assert chats.tg.texts(OWNER)[-1] == "Scheduled: every minute."
    water = CronStore(open_store(chats.home, None).handle).get("water")
    assert water is not None and water.deliver.startswith("origin:") and water.owner

    names = ("digest", "ping", "water")
    for minute in (1, 2):
        clock.now = (int(clock.now) // 60 + 1) * 60 + 1
        if minute == 1:  # the agent's job was made on the real clock: due at once
            clock.now = max(clock.now, water.next_run + 1)
        scheduler.wake()
        chats.tg.wait_for(lambda m=minute: finished(chats.home, names, m), timeout=60,
                          what=f"{minute} runs of each job")
        for _ in range(3):  # more ticks at the same minute fire nothing again
            scheduler.wake()
        assert all(len(runs(chats.home, n)) == minute for n in names)

    # deliveries: two dated sections in the file, two messages in the chat for each
    sections = out.read_text(encoding="utf-8").split("## ")[1:]
    assert len(sections) == 2 and all("Three issues" in s and "- digest" in s for s in sections)
    texts = chats.tg.texts(OWNER)
    assert texts.count("The build is green.") == 2
    assert texts.count("Time to drink some water.") == 2

    # cache discipline, on the bytes the fake provider recorded
    for marker in ("DIGEST", "PING", "WATER"):
        first, second = _requests_of(chats.fake, marker)
        assert json.dumps(first.body["tools"]) == json.dumps(second.body["tools"])
        assert json.dumps(first.body["system"]) == json.dumps(second.body["system"])
        assert first.cache_write > 0
        assert second.cache_read >= 0.95 * (first.cache_write + first.cache_read), marker
    # the runs are stored sessions: visible and resumable
    with open_store(chats.home, None) as store:
        rows = {r["id"]: r for r in store.list_sessions(limit=50)}
        assert all(r["session_id"] in rows and rows[r["session_id"]]["source"] == "cron"
                   for n in names for r in runs(chats.home, n))

    # /cron in the chat: its own job only (the operator's two are not its business)
    chats.tg.message(OWNER, OWNER, "/cron")
    listed = chats.tg.wait_for(lambda: [t for t in chats.tg.texts(OWNER) if "water" in t
                                        and "next" in t], what="the /cron answer")[0]
    assert "digest" not in listed and "ping" not in listed and "cost so far" in listed

    # the gateway stops across two boundaries: one catch-up run per job, not two
    chats.stop_all()
    before = {n: len(runs(chats.home, n)) for n in names}
    clock.now += 150
    server = chats.start()
    scheduler = drive(server, clock)
    chats.tg.wait_for(lambda: finished(chats.home, names, 3), timeout=60, what="catch-up runs")
    for _ in range(3):
        scheduler.wake()
    assert {n: len(runs(chats.home, n)) for n in names} == {n: before[n] + 1 for n in names}
