"""Leases for leader election (store.lease / release_lease) on SQLite and PostgreSQL:
take, renew, refuse, expire, release by the holder only, one winner among racers."""

from __future__ import annotations

import time

import pytest

from memory import open_store
from tests.helpers import at_once


@pytest.fixture
def store(any_store):
    return any_store


def test_lease_is_taken_renewed_and_refused_to_others(store):
    assert store.lease("telegram:bot1", "w1", 30) is True
    assert store.lease("telegram:bot1", "w1", 30) is True  # renewal
    assert store.lease("telegram:bot1", "w2", 30) is False
    assert store.lease("telegram:bot2", "w2", 30) is True  # names are independent
    rows = store.handle.rows("SELECT holder, expires FROM leases WHERE name = ?",
                             ["telegram:bot1"])
    assert rows[0]["holder"] == "w1" and rows[0]["expires"] > time.time() + 20


def test_expired_lease_goes_to_the_next_taker(store):
    assert store.lease("poller", "w1", 0.05)
    deadline = time.monotonic() + 10
    while not store.lease("poller", "w2", 30):
        assert time.monotonic() < deadline, "the expired lease was never taken over"
        time.sleep(0.02)
    assert store.lease("poller", "w1", 30) is False


def test_release_only_by_the_holder(store):
    assert store.lease("poller", "w1", 30)
    store.release_lease("poller", "w2")  # not the holder: nothing happens
    assert store.lease("poller", "w2", 30) is False
    store.release_lease("poller", "w1")
    assert store.lease("poller", "w2", 30) is True


def test_bad_ttl_is_refused(store):
    with pytest.raises(ValueError, match="ttl_s"):
        store.lease("poller", "w1", 0)


def test_concurrent_takers_exactly_one_wins(tmp_path, database_url):
    """Eight workers, each with its own connection, race for one free lease."""
    home = tmp_path / "home"
    open_store(home, database_url).close()  # migrations done before the race
    stores = [open_store(home, database_url) for _ in range(8)]
    won: list[str] = []

    def race(i: int) -> None:
        if stores[i].lease("leader", f"w{i}", 30):
            won.append(f"w{i}")

    errors = at_once(race, len(stores))
    for s in stores:
        s.close()
    assert errors == []
    assert len(won) == 1
    with open_store(home, database_url) as check:
        assert check.handle.rows("SELECT holder FROM leases")[0]["holder"] == won[0]
