"""Scheduled jobs delivering to chat platforms (wire tier: the real app on uvicorn, the fake
provider, FakeSlack / FakeDiscord / FakeMatrix / FakeWhatsApp): a `slack:CHANNEL` /
`discord:CHANNEL` / `matrix:ROOM` / `whatsapp:NUMBER` job posts
its answer in that channel through the gateway's running adapter, and a job whose target
is the `origin` of a chat (origin:OWNER, the chat's owner) answers in that chat, found by
its route; a WhatsApp number outside the 24-hour window is a failed delivery saying so.
The scheduler's clock is driven as in test_cron_gateway.py (tests/chat/cron_clock.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from frontend.config.settings import load_settings
from frontend.cron.jobs import JobSpec, create
from gateway.chat.base import chat_owner
from memory import open_store
from memory.cron import CronStore
from tests.chat.cron_clock import Clock, drive, finished, runs
from tests.fakes import Reply

pytestmark = pytest.mark.wire

POST = "POST: say when the standup is."
BACK = "BACK: remind the user to stretch."


def _responder(record: Any) -> Reply:
    first = json.dumps(record.body.get("messages", [])[:1])
    if "POST" in first:
        return Reply("Standup at ten.")
    if "BACK" in first:
        return Reply("Time to stretch.")
    return Reply("Hello.")


def _fire(home: Path, server: Any, clock: Clock, jobs: dict[str, str], cwd: Path) -> Any:
    """Create `jobs` (name -> target) on `* * * * *`, move the clock past the next
    minute and wake the scheduler."""
    settings = load_settings(home)
    with open_store(home, None) as store:
        cron = CronStore(store.handle)
        for name, target in jobs.items():
            prompt = BACK if target.startswith("origin:") else POST
            create(settings, cron, JobSpec("* * * * *", prompt, target, name, tz="UTC"),
                   cwd=cwd, now=clock.now)
    clock.now = (int(clock.now) // 60 + 1) * 60 + 1
    return drive(server, clock)


def test_jobs_deliver_to_a_slack_channel_and_to_their_slack_origin(slacks, tmp_path):
    from tests.chat.slack_harness import CHANNEL, OWNER

    slacks.fake.responder = _responder
    server = slacks.start()
    slacks.slack.dm(OWNER, "hello")  # the DM's route: the chat a job made there answers in
    slacks.turns(server, 1)
    dm = f"D{OWNER}"
    _fire(slacks.home, server, Clock(), {
        "standup": f"slack:{CHANNEL}", "stretch": f"origin:{chat_owner('slack', dm)}"}, tmp_path)
    slacks.slack.wait_for(lambda: finished(slacks.home, ("standup", "stretch"), 1),
                          timeout=30, what="both runs delivered")
    assert slacks.slack.texts(CHANNEL) == ["Standup at ten."]
    assert slacks.slack.texts(dm)[-1] == "Time to stretch."
    assert [c.params.get("channel") for c in slacks.slack.recorded("chat.postMessage")
            if "Standup" in json.dumps(c.params)] == [CHANNEL]


def test_jobs_deliver_to_a_discord_channel_and_to_their_discord_origin(discord_chats, tmp_path):
    from tests.chat.discord_harness import OWNER
    from tests.fakes.discord_api import CHANNEL_ID

    dc = discord_chats
    dc.fake.responder = _responder
    server = dc.start()
    dc.dc.dm(OWNER, "hello")
    dc.turns(server, 1)
    dm = OWNER + 1  # the fake's DM channel of the user
    _fire(dc.home, server, Clock(), {
        "standup": f"discord:{CHANNEL_ID}", "stretch": f"origin:{chat_owner('discord', str(dm))}"},
        tmp_path)
    dc.dc.wait_for(lambda: finished(dc.home, ("standup", "stretch"), 1), timeout=30,
                   what="both runs delivered")
    assert dc.dc.texts(CHANNEL_ID) == ["Standup at ten."]
    assert dc.dc.texts(dm)[-1] == "Time to stretch."


def test_jobs_deliver_to_a_matrix_room_and_to_their_matrix_origin(matrices, tmp_path):
    from tests.chat.matrix_harness import OWNER

    matrices.fake.responder = _responder
    server = matrices.start()
    room = matrices.hs.dm(OWNER)
    matrices.joined(room)
    matrices.hs.say(room, OWNER, "hello")  # the DM's route: the chat a job made there answers in
    matrices.turns(server, 1)
    group = matrices.hs.invite("!team:fake.local", OWNER, members=("@bob:fake.local",))
    matrices.joined(group)
    _fire(matrices.home, server, Clock(), {
        "standup": f"matrix:{group}", "stretch": f"origin:{chat_owner('matrix', room)}"}, tmp_path)
    matrices.hs.wait_for(lambda: finished(matrices.home, ("standup", "stretch"), 1),
                         timeout=30, what="both runs delivered")
    assert matrices.hs.texts(group) == ["Standup at ten."]
    assert matrices.hs.texts(room)[-1] == "Time to stretch."


def test_whatsapp_jobs_deliver_within_the_window_and_fail_clearly_outside(whatsapps, tmp_path):
    from tests.chat.whatsapp_harness import OTHER, OWNER

    whatsapps.fake.responder = _responder
    server = whatsapps.start()
    whatsapps.wa.message(OWNER, "hello")
    whatsapps.turns(server, 1)
    _fire(whatsapps.home, server, Clock(), {
        "standup": f"whatsapp:{OWNER}", "silent": f"whatsapp:{OTHER}"}, tmp_path)
    whatsapps.wa.wait_for(lambda: finished(whatsapps.home, ("standup",), 1) and
                          runs(whatsapps.home, "silent") and
                          runs(whatsapps.home, "silent")[0]["error"], timeout=30,
                          what="one delivered, one failed")
    assert whatsapps.wa.texts(OWNER)[-1] == "Standup at ten."
    assert "24-hour customer-service window (error 131047)" in \
        runs(whatsapps.home, "silent")[0]["error"]

