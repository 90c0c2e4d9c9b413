"""A chat platform is a package plus one registry line, and replies are never
lost. A fourth platform (tests/chat/fourth/: facts.py and a builder around the console
adapter) answers a chat turn and receives a scheduled job's answer with one line added
to the registry; a reply the platform refused is kept in the store's ledger and sent
again, exactly once, after a restart - even with two workers replaying at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.cron import targets
from frontend.config.settings import load_settings
from frontend.cron.jobs import JobSpec, create
from gateway.boot import build_gateway
from gateway.chat import boot, platforms
from gateway.chat.base import ChatPolicy
from gateway.chat.console import ConsoleAdapter
from gateway.chat.hub import ChatHub
from gateway.chat.probe import probes
from gateway.cron.deliver import Deliverer
from memory import open_store
from memory.cron import CronStore
from memory.inbound import KEPT, Taken
from memory.outbox import Outbox
from tests.chat.fourth.facts import FACTS as FOURTH
from tests.fakes import FakeProvider, Reply
from tests.helpers import GATEWAY_MODEL, at_once

pytestmark = pytest.mark.wire


def _config(home: Path, fake: FakeProvider, **gateway: Any) -> None:
    config = {"provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "k",
              "base_url": fake.anthropic_base_url, "toolsets": ["file"], "gateway": gateway}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def test_a_fourth_platform_is_a_package_and_one_registry_line(hermes_home, monkeypatch, tmp_path):
    monkeypatch.setattr(platforms, "PLATFORMS", (*platforms.PLATFORMS, FOURTH))  # the one line
    monkeypatch.setenv("FOURTH_TOKEN", "secret")
    with FakeProvider() as fake:
        fake.responder = lambda rec: Reply("seen: " + rec.body["messages"][-1]["content"][-1]["text"])
        _config(hermes_home, fake, fourth={"allowed_users": ["u1"]})
        settings = load_settings(hermes_home)
        assert not [w for w in settings.warnings if "fourth" in w]  # the schema knows its keys
        started = boot.configured(settings)
        assert [a.name for a, _ in started] == ["fourth"]
        adapter: ConsoleAdapter = started[0][0]  # type: ignore[assignment]
        assert [name for name, _, _ in probes(settings)] == ["fourth"]  # hermes doctor
        assert targets.problem("fourth:lobby", targets.ready()) == \
            "fourth:lobby is not a Fourth room id (room-NUMBER)"
        assert targets.describe("fourth:room-7") == "the Fourth room room-7"
        with open_store(hermes_home, None) as store:  # what `hermes cron add` checks and keeps
            job = create(settings, CronStore(store.handle),
                         JobSpec("every 1h", "say hi", "fourth:room-7", "hi"), cwd=tmp_path)
        gateway, close = build_gateway(settings, hermes_home)
        hub = ChatHub(gateway, {a.name: p for a, p in started})
        notes: list[str | None] = []
        deliverer = Deliverer(settings, gateway.routes.handle,
                              lambda name: next((a for a in hub.adapters if a.name == name), None),
                              hub.ledger)

        async def scenario() -> None:
            await hub.start([adapter])
            await adapter.say("room-1", "u1", "hello")
            await adapter.wait(lambda: adapter.of("room-1", "final"))
            assert await deliverer.send(job.deliver, "the job's answer", job.name, "UTC", 0.0) is None
            adapter.refusing = True  # down: the next answer goes to the ledger, not lost
            notes.append(await deliverer.send(job.deliver, "the next answer", job.name, "UTC", 0.0))
            adapter.refusing = False
            await hub.ledger.replay(adapter)
            await hub.stop()

        try:
            asyncio.run(scenario())
        finally:
            gateway.close()
            close()
    assert adapter.of("room-1", "final") == ["seen: hello"]
    assert adapter.of("room-7", "delivery") == ["the job's answer", "the next answer"]
    assert "handed to the chat delivery ledger" in str(notes[0])


def _hub(home: Path, console: ConsoleAdapter, every: float = 0.05) -> tuple[ChatHub, Any]:
    gateway, close = build_gateway(load_settings(home), home)
    hub = ChatHub(gateway, {"console": ChatPolicy(allowed_users=frozenset({"u1"}))})
    hub.ledger.every = every

    def closing() -> None:
        gateway.close()
        close()
    return hub, closing


async def _until(condition: Any, timeout: float = 15.0) -> None:
    """Poll `condition()` until true (deadline `timeout` s)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.02)


def _waiting(home: Path) -> list[dict]:
    with open_store(home, None) as store:
        return [dict(r) for r in store.handle.rows("SELECT * FROM chat_outbox ORDER BY id")]


def test_a_refused_reply_is_sent_once_after_a_restart(hermes_home):
    with FakeProvider() as fake:
        fake.responder = lambda rec: Reply("the answer")
        _config(hermes_home, fake)
        down = ConsoleAdapter()
        down.refusing = True  # the platform takes messages in but refuses to post
        hub, close = _hub(hermes_home, down)

        async def refused() -> None:
            await hub.start([down])
            await down.say("c1", "u1", "question", thread_id=42)
            await _until(lambda: hub.stats["console"].turns)
            await hub.stop()

        try:
            asyncio.run(refused())
        finally:
            close()
        kept = _waiting(hermes_home)
        assert [(r["platform"], r["chat"], r["thread"], r["text"], r["sent"]) for r in kept] == \
            [("console", "c1", "42", "the answer", 0)]
        assert "refused" in kept[0]["error"]

        # restart: two workers at once, both replaying the same ledger
        first, second = ConsoleAdapter(), ConsoleAdapter()
        hub1, close1 = _hub(hermes_home, first)
        hub2, close2 = _hub(hermes_home, second)

        async def back() -> None:
            await asyncio.gather(hub1.start([first]), hub2.start([second]))
            await _until(lambda: _waiting(hermes_home)[0]["sent"] == 1)
            for _ in range(5):  # several more rounds of both: nothing is sent twice
                await asyncio.sleep(hub1.ledger.every)
            await asyncio.gather(hub1.stop(), hub2.stop())

        try:
            asyncio.run(back())
        finally:
            close1()
            close2()
    delivered = first.of("c1", "delivery") + second.of("c1", "delivery")
    assert delivered == ["the answer"]
    assert hub1.ledger.replayed + hub2.ledger.replayed == 1


def test_a_stop_while_a_row_is_sent_lets_it_finish_and_leaves_no_claim(hermes_home):
    """A hub stopped (a gateway shutting down) while its ledger sent a kept row cancelled
    the send after the row's claim: the row stayed claimed, hidden from every worker for
    STALE (5 min) after the restart. Now the stop claims nothing new and lets the row
    being sent finish."""
    with FakeProvider() as fake:
        _config(hermes_home, fake)
        with open_store(hermes_home, None) as store:
            Outbox(store.handle).keep("console", "c1", "kept answer")

        class Slow(ConsoleAdapter):
            def __init__(self) -> None:
                super().__init__()
                self.sending = asyncio.Event()
                self.go_on = asyncio.Event()

            async def deliver(self, chat: str, text: str, thread: str | None = None) -> None:
                self.sending.set()
                await self.go_on.wait()
                await super().deliver(chat, text, thread)

        slow = Slow()
        hub, close = _hub(hermes_home, slow)

        async def stop_mid_send() -> None:
            await hub.start([slow])
            await asyncio.wait_for(slow.sending.wait(), 15)
            stopping = asyncio.create_task(hub.stop())
            await asyncio.sleep(0)  # the stop has begun while the row is being sent
            slow.go_on.set()
            await asyncio.wait_for(stopping, 15)

        try:
            asyncio.run(stop_mid_send())
        finally:
            close()
        (row,) = _waiting(hermes_home)
        assert row["sent"] == 1 and row["attempts"] == 1
        assert slow.of("c1", "delivery") == ["kept answer"]


def test_a_kept_row_is_claimed_by_one_sender_of_many(hermes_home, database_url):
    """The ledger's claim is one UPDATE: of four senders racing for the same row (threads,
    each on its own connection), exactly one wins - on SQLite and on PostgreSQL."""
    with open_store(hermes_home, database_url) as store:
        Outbox(store.handle).keep("console", "c1", "text")
        row = Outbox(store.handle).waiting("console")[0]

    won: list[bool] = []

    def race(_index: int) -> None:
        with open_store(hermes_home, database_url) as store:
            won.append(Outbox(store.handle).claim(row))

    assert at_once(race, 4) == []
    assert sorted(won) == [False, False, False, True]
    with open_store(hermes_home, database_url) as store:
        outbox = Outbox(store.handle)
        assert outbox.waiting("console") == []  # a live claim hides it
        outbox.failed(int(row["id"]), "refused again")
        assert [r["attempts"] for r in outbox.waiting("console")] == [1]
        again = outbox.waiting("console")[0]
        assert outbox.claim(again)
        outbox.failed(int(again["id"]), "took the first piece", rest="ext")  # kit/pieces.py
        assert [(r["text"], r["attempts"]) for r in outbox.waiting("console")] == [("ext", 2)]


def test_a_message_id_is_taken_by_one_worker_of_many_and_forgotten_after_kept(hermes_home, database_url):
    """A webhook delivered to four workers at once (threads, each on its own connection)
    is taken by exactly one - on SQLite and on PostgreSQL; another platform's same id is
    its own; an id older than KEPT is pruned and could be taken again."""
    won: list[bool] = []

    def race(_index: int) -> None:
        with open_store(hermes_home, database_url) as store:
            won.append(Taken(store.handle).first("whatsapp", "wamid.X", now=1000.0))

    assert at_once(race, 4) == []
    assert sorted(won) == [False, False, False, True]
    with open_store(hermes_home, database_url) as store:
        taken = Taken(store.handle)
        assert taken.first("slack", "wamid.X") and not taken.first("whatsapp", "wamid.X")
        assert taken.prune(now=1000.0 + KEPT - 1) == 0
        assert taken.prune(now=1000.0 + KEPT + 1) == 1
        assert taken.first("whatsapp", "wamid.X")


def test_telegram_answers_what_arrived_while_the_gateway_was_down_and_nothing_twice(chats):
    """Telegram keeps unconfirmed updates (getUpdates' offset): a message sent while no
    gateway ran is answered when one is back, and the one answered before is not again."""
    from tests.helpers import OWNER

    server = chats.start()
    chats.fake.script(Reply("first answer"))
    chats.tg.message(OWNER, OWNER, "before")
    chats.turns(server, 1)
    chats.stop_all()
    chats.tg.message(OWNER, OWNER, "while down")
    chats.fake.script(Reply("second answer"))
    server = chats.start()
    chats.turns(server, 1)
    asked = [repr(r.body["messages"][-1]) for r in chats.fake.requests_for("anthropic")]
    assert len(asked) == 2 and "before" in asked[0] and "while down" in asked[1]
    assert chats.tg.shown(OWNER) == ["first answer", "second answer"]
    assert chats.hub(server).stats["telegram"].messages == 1  # "before" was not delivered again
