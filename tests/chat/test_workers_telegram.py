"""One Telegram poller per bot token across the gateway workers (wire tier: two real
`hermes gateway` processes on one HERMES_HOME, the fake Bot API, the fake provider).
The leader polls and answers; the standby takes over when the leader is SIGKILLed
(gateway/chat/leader.py)."""

from __future__ import annotations

import httpx
import pytest

from tests.fakes import FakeProvider, Reply
from tests.fakes.gateway_workers import start_workers, stop_workers, write_config
from tests.fakes.telegram_api import TOKEN, FakeTelegram
from tests.helpers import KEY_A, OWNER, wait_until

pytestmark = pytest.mark.wire
TTL = 3  # s: the smallest leader_ttl; a takeover comes within about TTL + TTL/4


def _role(worker) -> str:
    health = httpx.get(worker.root + "/health", timeout=10,
                       headers={"authorization": f"Bearer {KEY_A}"}).json()
    return health["platforms"]["telegram"]["role"]


def _roles(workers) -> list[str]:
    return sorted(_role(w) for w in workers)


def test_one_worker_polls_and_the_standby_takes_over_when_it_dies(hermes_home, database_url):
    with FakeProvider(min_cache_tokens=64) as fake, FakeTelegram() as tg:
        write_config(hermes_home, fake.anthropic_base_url, telegram={
            "base_url": tg.base_url, "allowed_users": [OWNER], "edit_interval": 0.2,
            "leader_ttl": TTL})
        workers = start_workers(hermes_home, 2, env={"TELEGRAM_BOT_TOKEN": TOKEN},
                                database_url=database_url)
        try:
            wait_until(lambda: _roles(workers) == ["leader", "standby"], 15, "a leader")
            fake.responder = lambda rec: Reply(f"answer {len(fake.requests)}")
            tg.message(OWNER, OWNER, "first")
            tg.wait_for(lambda: tg.shown(OWNER) == ["answer 1"], timeout=60, what="one answer")  # a fresh worker process, first turn
            (leader,) = [w for w in workers if _role(w) == "leader"]
            (standby,) = [w for w in workers if w is not leader]
            leader.kill()  # no shutdown: its lease is left to expire
            wait_until(lambda: _role(standby) == "leader", 3 * TTL, "the takeover")
            tg.message(OWNER, OWNER, "second")
            # the standby's first turn is a fresh worker's first turn too (17-20 s measured
            # at load average 17-20 on 2 cores, on main as well)
            tg.wait_for(lambda: tg.shown(OWNER) == ["answer 1", "answer 2"], timeout=60,
                        what="answer 2")
            assert len(fake.requests) == 2  # each message answered once, by one worker
        finally:
            stop_workers(workers)
