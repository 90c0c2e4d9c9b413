"""The gateway on a PostgreSQL store (`database_url` in config.yaml): sessions, routes
and transcripts live in the database (nothing in HERMES_HOME's state.db/gateway.db), a
session's second turn reads the stored prefix, a stateless client continues its
session, and a turn waits while another process holds the session's advisory lock."""

from __future__ import annotations

import threading

from gateway.auth import owner_id
from tests.helpers import KEY_A, ask, gateway_of


def test_gateway_turns_routes_and_locks_on_postgres(harness, postgres_server):
    url = postgres_server.new_database()
    harness.config["database_url"] = url
    server = harness.start()
    client = harness.client(server)
    assert ask(client, "s", "one").choices[0].message.content
    second = ask(client, "s", "two")
    assert second.usage.prompt_tokens_details.cached_tokens > 0
    gw = gateway_of(server)
    assert gw.store.handle.kind == "postgres" and gw.routes.handle.kind == "postgres"
    sid = gw.routes.get(owner_id(KEY_A), "s").session_id
    assert [m["role"] for m in gw.store.messages(sid)] == ["user", "assistant"] * 2
    assert not (harness.home / "state.db").exists()
    assert not (harness.home / "gateway.db").exists()

    history = [{"role": "user", "content": "stateless hi"}]
    first = client.chat.completions.create(model="hermes", messages=history)
    history += [{"role": "assistant", "content": first.choices[0].message.content},
                {"role": "user", "content": "and more"}]
    client.chat.completions.create(model="hermes", messages=history)
    rows = gw.store.handle.rows("SELECT COUNT(DISTINCT session_id) AS n FROM transcripts")
    assert rows[0]["n"] >= 1
    assert len(gw.store.list_sessions()) == 2  # the stateless client stayed in one session

    done = threading.Event()
    with gw.store.session_lock(sid, purpose="another worker"):
        thread = threading.Thread(target=lambda: (ask(client, "s", "three"), done.set()))
        thread.start()
        assert not done.wait(0.5)  # held elsewhere: the turn waits
    thread.join(30)
    assert done.is_set()
