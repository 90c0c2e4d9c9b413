"""`hermes --resume`'s picker leaves out one-shot runs that got no answer (fast
tier: a real SQLite store, no process)."""

from __future__ import annotations

from hermes_cli.picker import choose, recent
from memory.store import SessionStore


def _session(store: SessionStore, ident: str, source: str, answered: bool) -> None:
    store.create_session(ident, model="m", provider="anthropic", system_prompt="s",
                         source=source)
    if answered:
        store.add_usage(ident, turn=1, call_index=1, model="m", uncached=10, write_5m=0,
                        write_1h=0, cache_read=0, output=2, cost_usd=0.001)


def test_failed_oneshots_are_left_out_and_counted(tmp_path):
    store = SessionStore(tmp_path / "state.db")
    _session(store, "repl-1", "cli", answered=True)
    _session(store, "ok-shot", "oneshot", answered=True)
    for n in range(3):
        _session(store, f"failed-{n}", "oneshot", answered=False)
    _session(store, "repl-new", "cli", answered=False)  # a REPL session is always listed
    rows, hidden = recent(store)
    assert [r["id"] for r in rows] == ["repl-new", "ok-shot", "repl-1"]
    assert hidden == 3
    said: list[str] = []
    assert choose(rows, lambda *a, **k: said.append(" ".join(map(str, a))),
                  lambda _: "1", hidden=hidden) == "repl-new"
    assert any("3 one-shot runs that got no answer not listed" in line for line in said)
    rows, _ = recent(store, current="failed-1")  # the current session always stays
    assert "failed-1" in [r["id"] for r in rows]
    store.close()
