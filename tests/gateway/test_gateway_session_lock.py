"""The gateway holds a stored session's lock per turn, waits for another holder, and
reloads the history another process moved between its turns."""

from __future__ import annotations

import json
import threading

from gateway.auth import owner_id
from memory.session_lock import session_lock
from tests.fakes import Reply
from tests.helpers import KEY_A, ask, child_env, gateway_of, hermes


def test_gateway_reloads_history_moved_by_the_cli(harness, tmp_path):
    server = harness.start()
    client = harness.client(server)
    assert ask(client, "s", "one").choices[0].message.content
    sid = gateway_of(server).routes.get(owner_id(KEY_A), "s").session_id
    harness.fake.script(Reply(text="cli answer"))
    result = hermes(["--resume", sid, "-q", "said in the cli"], child_env(harness.home),
                    cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    ask(client, "s", "two")
    sent = json.dumps(harness.fake.last.body)
    assert "said in the cli" in sent and "cli answer" in sent
    store = gateway_of(server).store
    roles = [m["role"] for m in store.messages(sid)]
    assert roles == ["user", "assistant"] * 3


def test_gateway_turn_waits_for_another_holder(harness):
    server = harness.start()
    client = harness.client(server)
    ask(client, "s", "one")
    gw = gateway_of(server)
    sid = gw.routes.get(owner_id(KEY_A), "s").session_id
    done = threading.Event()
    with session_lock(gw.store.path, sid):
        thread = threading.Thread(target=lambda: (ask(client, "s", "two"), done.set()))
        thread.start()
        assert not done.wait(0.5)  # held elsewhere: the turn waits
    thread.join(30)
    assert done.is_set()
