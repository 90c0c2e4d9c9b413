"""The REPL holds the lock of the session it drives, also after a compression moved it
to a child session (one process per session: a second hermes cannot drive the child)."""

from __future__ import annotations

import yaml

from memory import open_store
from tests.fakes import Reply

MODEL = "claude-sonnet-5-5"
LONG = "please look at this part of the parser: " + "tokens and more tokens " * 40


def test_the_lock_follows_the_session_into_its_compression_child(spawn_repl, fake_provider,
                                                                 hermes_home):
    config = {"model": MODEL, "context_windows": {MODEL: 3000},
              "compression": {"threshold": 0.95}}
    (hermes_home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    fake_provider.script(*(Reply(text=f"answer {n}") for n in range(4)),
                         Reply(text="## Summary\nthe parser was discussed"))
    repl = spawn_repl()
    for n in range(4):
        repl.send(f"{n}: {LONG}")
        repl.expect(f"answer {n}")
        repl.prompt()
    with open_store(hermes_home) as store:
        first = store.latest_session()["id"]
        assert [r["session_id"] for r in store.handle.rows("SELECT * FROM session_locks")] \
            == [first]
    repl.send("/compress")
    repl.expect("Continuing in session")
    repl.prompt()
    with open_store(hermes_home) as store:
        child = store.latest_session()
        assert child["parent_id"] == first
        held = [r["session_id"] for r in store.handle.rows("SELECT * FROM session_locks")]
    assert held == [child["id"]]  # the child held, the parent released
