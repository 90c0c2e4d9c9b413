"""Two messages of one session are serialised; different sessions run at the same time.

No timing assertions: the fake's responder waits on events that can only happen if the
gateway behaves, with a generous timeout that turns a failure into a wrong answer."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from gateway.auth import owner_id
from gateway.sessions import session_key
from tests.fakes import Reply
from tests.helpers import KEY_A, ask, gateway_of, wait_until

WAIT = 10.0


def _last_user_text(record) -> str:
    content = record.body["messages"][-1]["content"]
    return content if isinstance(content, str) else content[-1].get("text", "")



def test_two_messages_of_one_session_are_serialised(harness):
    server = harness.start()
    client = harness.client(server)
    locks = gateway_of(server).locks
    key = session_key(owner_id(KEY_A), "s")

    def responder(record):
        if "one" in _last_user_text(record):
            # hold the first answer until the second message waits for the session
            queued = wait_until(lambda: locks.users(key) == 2)
            return Reply(text="first-answer" if queued else "second never queued")
        return Reply(text="second-answer")

    harness.fake.responder = responder
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(ask, client, "s", "message one")
        assert wait_until(lambda: len(harness.fake.requests) == 1)
        second = pool.submit(ask, client, "s", "message two")
        assert first.result().choices[0].message.content == "first-answer"
        assert second.result().choices[0].message.content == "second-answer"
    records = harness.fake.requests
    assert len(records) == 2
    assert "first-answer" in repr(records[1].body["messages"])


def test_different_sessions_overlap(harness):
    server = harness.start()
    client = harness.client(server)
    arrived = {"a": threading.Event(), "b": threading.Event()}

    def responder(record):
        name = "a" if "from a" in _last_user_text(record) else "b"
        arrived[name].set()
        other = arrived["b" if name == "a" else "a"]
        return Reply(text="overlapped" if other.wait(WAIT) else "alone")

    harness.fake.responder = responder
    with ThreadPoolExecutor(2) as pool:
        a = pool.submit(ask, client, "a", "from a")
        b = pool.submit(ask, client, "b", "from b")
        answers = {a.result().choices[0].message.content, b.result().choices[0].message.content}
    assert answers == {"overlapped"}


def test_a_client_that_goes_away_mid_stream_leaves_a_usable_session(harness):
    server = harness.start()
    client = harness.client(server)
    harness.fake.script(Reply(text="a long streamed answer " * 20, chunks=40, delay=0.02))
    stream = ask(client, "s", "talk a lot", stream=True)
    next(iter(stream))
    stream.close()
    assert wait_until(lambda: gateway_of(server).locks.users(
        session_key(owner_id(KEY_A), "s")) == 0)
    reply = ask(client, "s", "still there?")
    assert reply.choices[0].message.content == "ok"
    roles = [m["role"] for m in harness.fake.last.body["messages"]]
    assert roles[-1] == "user" and roles.count("user") == 2
