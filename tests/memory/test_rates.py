"""The store's sliding request log (memory/rates.py) on SQLite and PostgreSQL: N per
window admitted, the N+1th refused with the wait, and racing workers (a connection
each) never admit more than N together."""

from __future__ import annotations

import pytest

from memory import open_store
from tests.helpers import at_once


def test_n_per_window_then_the_wait(any_store):
    assert [any_store.rate_take("k", 2, 60.0) for _ in range(2)] == [0.0, 0.0]
    wait = any_store.rate_take("k", 2, 60.0)
    assert 59.0 < wait <= 60.0
    assert any_store.rate_take("j", 2, 60.0) == 0.0  # names are independent
    with pytest.raises(ValueError):
        any_store.rate_take("k", 0, 60.0)


def test_racing_workers_admit_at_most_the_limit(tmp_path, database_url):
    home = tmp_path / "home"
    open_store(home, database_url).close()  # migrations done before the race
    stores = [open_store(home, database_url) for _ in range(8)]
    admitted: list[int] = []

    def race(i: int) -> None:
        for _ in range(3):
            if stores[i].rate_take("requests:owner", 5, 60.0) == 0.0:
                admitted.append(i)

    errors = at_once(race, len(stores))
    for store in stores:
        store.close()
    assert errors == []
    assert len(admitted) == 5
