"""Two `hermes gateway` worker processes on one database (wire tier: real processes,
the fake provider, the real openai client). A session bounced between the workers
keeps its history, its prompt bytes and its cache reads; two requests for one session
on two workers never run at once; a worker killed mid-turn loses nothing and its
session lock is taken over (docs/SCALEOUT.md)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import openai
import pytest

from memory import open_store
from tests.fakes import FakeProvider, Reply
from tests.fakes.gateway_workers import Worker, start_workers, stop_workers, write_config
from tests.helpers import KEY_A, child_env, hermes, system_of

pytestmark = pytest.mark.wire


class Fleet:
    def __init__(self, home, fake: FakeProvider, workers: list[Worker], url: str | None) -> None:
        self.home, self.fake, self.workers, self.url = home, fake, workers, url
        self.clients = [openai.OpenAI(base_url=w.base_url, api_key=KEY_A, max_retries=0,
                                      timeout=30) for w in workers]


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def fleet(request, tmp_path_factory) -> Iterator[Fleet]:
    """Two workers over one HERMES_HOME, on its SQLite files or on one PostgreSQL."""
    url = None if request.param == "sqlite" else \
        request.getfixturevalue("postgres_server").new_database()
    home = tmp_path_factory.mktemp("fleet") / "home"
    home.mkdir(mode=0o700)
    with FakeProvider(min_cache_tokens=64) as fake:
        write_config(home, fake.anthropic_base_url)
        workers = start_workers(home, 2, database_url=url)
        try:
            yield Fleet(home, fake, workers, url)
        finally:
            stop_workers(workers)


def _ask(client: openai.OpenAI, session: str, text: str):
    return client.chat.completions.with_raw_response.create(
        model="hermes", messages=[{"role": "user", "content": text}],
        extra_headers={"X-Hermes-Session-Id": session})


def _of_session(fake: FakeProvider, marker: str) -> list:
    """The fake's records of the turns whose first user message holds `marker`."""
    return [r for r in fake.requests if marker in repr(r.body.get("messages", [])[:1])]


def test_a_session_bouncing_between_workers_keeps_history_bytes_and_cache_reads(fleet):
    workers, stored = [], set()
    for turn in range(4):
        raw = _ask(fleet.clients[turn % 2], "bounce", f"bounce turn {turn}")
        assert raw.parse().choices[0].message.content
        workers.append(raw.headers["x-hermes-worker"])
        stored.add(raw.headers["x-hermes-stored-session-id"])
    assert len(stored) == 1  # one stored session throughout
    store = open_store(fleet.home, fleet.url, read_only=True)  # --database-url was used
    try:
        assert len(store.messages(stored.pop())) == 8
    finally:
        store.close()
    assert workers[0] == workers[2] != workers[1] == workers[3]
    records = _of_session(fleet.fake, "bounce turn 0")
    assert len(records) == 4
    for turn, record in enumerate(records):
        sent = repr(record.body["messages"])
        assert all(f"bounce turn {t}" in sent for t in range(turn + 1))  # the whole history
        assert system_of(record) == system_of(records[0])  # the stored prompt bytes
        assert record.body["tools"] == records[0].body["tools"]
    for before, after in zip(records, records[1:], strict=False):
        # a rebuilt agent sends the previous request's prefix byte for byte: all read
        assert after.cache_read >= before.prompt_tokens - 1, (before.prompt_tokens, after.cache_read)
        assert after.miss_reason is None


def test_two_requests_for_one_session_on_two_workers_never_run_at_once(fleet):
    _ask(fleet.clients[0], "serial", "serial start")
    active, most, lock = [0], [0], threading.Lock()

    def slow(record):
        if "serial start" not in repr(record.body.get("messages", [])[:1]):
            return None
        with lock:
            active[0] += 1
            most[0] = max(most[0], active[0])
        time.sleep(0.4)  # long enough for the other worker's request to overlap
        with lock:
            active[0] -= 1
        return Reply("done")

    fleet.fake.responder = slow
    try:
        errors: list[BaseException] = []

        def send(index: int) -> None:
            try:
                _ask(fleet.clients[index], "serial", f"at once on worker {index}")
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
        threads = [threading.Thread(target=send, args=(i,)) for i in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    finally:
        fleet.fake.responder = None
    assert not errors, errors
    assert most[0] == 1  # one at a time across the fleet
    last = _of_session(fleet.fake, "serial start")[-1]
    sent = repr(last.body["messages"])
    assert "at once on worker 0" in sent and "at once on worker 1" in sent  # both kept


def test_a_worker_killed_mid_turn_loses_nothing_and_its_lock_is_taken_over(fleet):
    doomed = Worker(fleet.home, database_url=fleet.url)
    victim = openai.OpenAI(base_url=doomed.base_url, api_key=KEY_A, max_retries=0, timeout=30)
    _ask(victim, "crash", "crash before")
    reached, release = threading.Event(), threading.Event()

    def hang(record):
        if "crash mid-turn" not in repr(record.body.get("messages", [])):
            return None
        reached.set()
        release.wait(30)
        return Reply("never delivered")

    fleet.fake.responder = hang
    thread = threading.Thread(target=lambda: pytest.raises(openai.APIError, _ask, victim,
                                                           "crash", "crash mid-turn"))
    try:
        thread.start()
        assert reached.wait(30), "the turn never reached the provider"
        doomed.kill()  # SIGKILL while it holds the session's lock
    finally:
        release.set()
        fleet.fake.responder = None
        thread.join(30)
        doomed.stop()
    started = time.monotonic()
    raw = _ask(fleet.clients[1], "crash", "crash after")
    assert time.monotonic() - started < 10  # taken over at once, not after the lock's expiry
    assert raw.parse().choices[0].message.content
    sent = repr(fleet.fake.last.body["messages"])
    assert "crash before" in sent and "crash mid-turn" in sent and "crash after" in sent


def test_a_wrong_database_url_is_one_clear_line(tmp_path):
    result = hermes(["gateway", "--port", "0", "--database-url", "mysql://u:secret@h/db"],
                    child_env(tmp_path, HERMES_API_KEY="k" * 20), timeout=30)
    assert result.returncode == 1
    assert "--database-url must be a postgresql:// URL" in result.stderr
    assert "secret" not in result.stderr and "Traceback" not in result.stderr
