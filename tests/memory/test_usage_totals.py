"""What /metrics reads from the store (usage_totals, usage_settled, owner_tokens) on
SQLite and PostgreSQL: sums by owner, model, kind and miss cause, by id range."""

from __future__ import annotations


def test_usage_totals_by_owner_model_kind_and_cause(any_store):
    store = any_store
    store.create_session("s1", model="m1", provider="anthropic", system_prompt="x", owner="o1")
    store.create_session("s2", model="m1", provider="anthropic", system_prompt="x")
    store.add_usage("s1", uncached=10, write_5m=5, write_1h=1, cache_read=100, output=3,
                    cost_usd=0.5)
    store.add_usage("s1", uncached=1, cache_read=200, output=2, cost_usd=0.25,
                    miss_cause="ttl_expired")
    store.add_usage("s1", uncached=1, cache_read=None, output=1, cost_usd=None, kind="keep_warm")
    store.add_usage("s2", uncached=7, output=7, cost_usd=0.125)
    rows = {(r["owner"], r["kind"], r["miss_cause"]): r for r in store.usage_totals()}
    assert set(rows) == {("o1", "", None), ("o1", "", "ttl_expired"), ("o1", "keep_warm", None),
                         ("", "", None)}
    first = rows[("o1", "", None)]
    assert (first["input"], first["cache_write"], first["cache_read"], first["output"],
            first["cost"], first["calls"]) == (10, 6, 100, 3, 0.5, 1)
    assert rows[("o1", "keep_warm", None)]["cost"] is None  # no known price
    assert rows[("", "", None)]["input"] == 7
    assert sum(r["calls"] for r in store.usage_totals(after=2)) == 2
    assert sum(r["calls"] for r in store.usage_totals(after=1, upto=2)) == 1
    assert store.usage_settled(0, "2000-01-01") is None
    assert store.usage_settled(1, "9999-01-01") == 4
    tokens = store.owner_tokens("o1", "2000-01-01")
    assert [t for _, t in tokens] == [19, 3, 2]  # uncached + writes + output
