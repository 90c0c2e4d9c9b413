"""One Slack socket per app token across the gateway workers (wire tier: two real
`hermes gateway` processes on one HERMES_HOME, FakeSlack, the fake provider). The
leader holds the Socket Mode connection and answers; the standby opens none, and takes
over when the leader is SIGKILLed (gateway/chat/leader.py)."""

from __future__ import annotations

import httpx
import pytest

from tests.chat.slack_harness import OWNER
from tests.fakes import FakeProvider, Reply
from tests.fakes.gateway_workers import start_workers, stop_workers, write_config
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, FakeSlack
from tests.helpers import KEY_A, wait_until

pytestmark = pytest.mark.wire
TTL = 3  # s: the smallest leader_ttl
DM = f"D{OWNER}"


def _role(worker) -> str:
    health = httpx.get(worker.root + "/health", timeout=10,
                       headers={"authorization": f"Bearer {KEY_A}"}).json()
    return health["platforms"]["slack"]["role"]


def test_one_worker_holds_the_socket_and_the_standby_takes_over(hermes_home):
    with FakeProvider(min_cache_tokens=64) as fake, FakeSlack() as slack:
        write_config(hermes_home, fake.anthropic_base_url, slack={
            "base_url": slack.base_url, "allowed_users": [OWNER], "edit_interval": 0.5,
            "leader_ttl": TTL})
        workers = start_workers(hermes_home, 2, env={"SLACK_BOT_TOKEN": BOT_TOKEN,
                                                      "SLACK_APP_TOKEN": APP_TOKEN})
        try:
            slack.admit.clear()  # a slow network: the leader is elected before its socket opens
            wait_until(lambda: sorted(_role(w) for w in workers) == ["leader", "standby"], 15,
                       "a leader")
            slack.admit.set()
            # the socket itself, not the roles: they are known before it is open
            slack.wait_for(lambda: slack.open_sockets == 1, what="the leader's socket")
            fake.responder = lambda rec: Reply(f"answer {len(fake.requests)}")
            slack.dm(OWNER, "first")
            slack.wait_for(lambda: slack.texts(DM) == ["answer 1"], timeout=60, what="answer 1")
            (leader,) = [w for w in workers if _role(w) == "leader"]
            (standby,) = [w for w in workers if w is not leader]
            leader.kill()  # no shutdown: its lease is left to expire
            wait_until(lambda: _role(standby) == "leader", 3 * TTL, "the takeover")
            slack.wait_for(lambda: slack.connections == 2 and slack.open_sockets == 1,
                           what="the new leader's socket (the dead one's closed)")
            slack.dm(OWNER, "second")
            slack.wait_for(lambda: slack.texts(DM) == ["answer 1", "answer 2"], timeout=60,
                           what="answer 2")
            assert len(fake.requests) == 2 and slack.connections == 2
            assert slack.problems() == []
        finally:
            stop_workers(workers)
