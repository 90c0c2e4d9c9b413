"""After a restart the first message of a session resends the byte-identical prompt."""

from __future__ import annotations

from tests.helpers import ask, gateway_of, system_of


def test_restart_rebuilds_from_the_stored_prompt_and_hits_the_cache(harness):
    first_server = harness.start()
    client = harness.client(first_server)
    system = [{"role": "system", "content": "You serve the docs site."}]
    raw = client.chat.completions.with_raw_response.create(
        model="hermes", messages=[*system, {"role": "user", "content": "hello"}],
        extra_headers={"X-Hermes-Session-Id": "s"})
    stored = raw.headers["x-hermes-stored-session-id"]
    ask(client, "s", "second")
    before = harness.fake.last
    harness.stop_all()

    second_server = harness.start()
    client = harness.client(second_server)
    raw = client.chat.completions.with_raw_response.create(
        model="hermes", messages=[{"role": "user", "content": "after restart"}],
        extra_headers={"X-Hermes-Session-Id": "s"})
    after = harness.fake.last
    assert raw.headers["x-hermes-stored-session-id"] == stored
    assert system_of(after) == system_of(before)
    assert "You serve the docs site." in repr(system_of(after))
    assert after.body["tools"] == before.body["tools"]
    assert after.cache_read > 0
    assert after.cache_read >= before.cache_read
    assert gateway_of(second_server).cache.builds == 1
    assert "after restart" in repr(after.body["messages"][-1])
