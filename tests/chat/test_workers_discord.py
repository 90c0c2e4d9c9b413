"""One Discord websocket per bot token across the gateway workers (wire tier: two real
`hermes gateway` processes on one HERMES_HOME, FakeDiscord, the fake provider). The
leader holds the connection and answers; the standby connects when the leader is
SIGKILLed (gateway/chat/leader.py)."""

from __future__ import annotations

import httpx
import pytest

from tests.chat.discord_harness import OWNER
from tests.fakes import FakeProvider, Reply
from tests.fakes.discord_api import TOKEN, FakeDiscord
from tests.fakes.gateway_workers import start_workers, stop_workers, write_config
from tests.helpers import KEY_A, wait_until

pytestmark = pytest.mark.wire
TTL = 3  # s: the smallest leader_ttl


def _role(worker) -> str:
    health = httpx.get(worker.root + "/health", timeout=10,
                       headers={"authorization": f"Bearer {KEY_A}"}).json()
    return health["platforms"]["discord"]["role"]


def test_one_worker_holds_the_websocket_and_the_standby_takes_over(hermes_home, database_url):
    with FakeProvider(min_cache_tokens=64) as fake, FakeDiscord() as dc:
        write_config(hermes_home, fake.anthropic_base_url, discord={
            "base_url": dc.base_url, "allowed_users": [OWNER], "leader_ttl": TTL})
        workers = start_workers(hermes_home, 2, env={"DISCORD_BOT_TOKEN": TOKEN},
                                database_url=database_url)
        try:
            wait_until(lambda: sorted(_role(w) for w in workers) == ["leader", "standby"],
                       15, "a leader")
            dc.wait_for(lambda: dc.identified, what="the leader's IDENTIFY")
            assert len(dc.identified) == 1  # the standby never opened a websocket
            fake.responder = lambda rec: Reply(f"answer {len(fake.requests)}")
            dc.dm(OWNER, "first")
            dc.wait_for(lambda: dc.texts(OWNER + 1) == ["answer 1"], timeout=60, what="answer 1")
            (leader,) = [w for w in workers if _role(w) == "leader"]
            (standby,) = [w for w in workers if w is not leader]
            leader.kill()  # no shutdown: its lease is left to expire
            wait_until(lambda: _role(standby) == "leader", 3 * TTL, "the takeover")
            dc.wait_for(lambda: len(dc.identified) == 2, what="the new leader's IDENTIFY")
            dc.dm(OWNER, "second")
            dc.wait_for(lambda: dc.texts(OWNER + 1) == ["answer 1", "answer 2"], timeout=60,
                        what="answer 2")
            assert len(fake.requests) == 2  # each message answered once, by one worker
            assert len(dc.identified) == 2  # the standby opened none while it was standby
        finally:
            stop_workers(workers)
