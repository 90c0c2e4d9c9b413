"""Sessions are isolated from each other and between client keys."""

from __future__ import annotations

import httpx

from tests.helpers import KEY_A, KEY_B, ask


def _get(server, path: str, key: str) -> httpx.Response:
    return httpx.get(server.base_url + path, headers={"authorization": f"Bearer {key}"})


def _stored_id(client, name: str, text: str) -> str:
    raw = client.chat.completions.with_raw_response.create(
        model="hermes", messages=[{"role": "user", "content": text}],
        extra_headers={"X-Hermes-Session-Id": name})
    return raw.headers["x-hermes-stored-session-id"]


def test_sessions_have_separate_histories(harness):
    server = harness.start()
    client = harness.client(server)
    ask(client, "one", "apples")
    ask(client, "two", "pears")
    ask(client, "one", "more apples")
    flat = repr(harness.fake.last.body["messages"])
    assert "apples" in flat and "pears" not in flat


def test_keys_cannot_see_each_others_sessions(harness):
    server = harness.start()
    alice, bob = harness.client(server, KEY_A), harness.client(server, KEY_B)
    a_id = _stored_id(alice, "shared-name", "alice's secret")
    b_id = _stored_id(bob, "shared-name", "bob's question")
    assert a_id != b_id
    assert "alice" not in repr(harness.fake.last.body["messages"])
    assert _get(server, "/sessions/shared-name/usage", KEY_A).json()["session_id"] == a_id
    assert _get(server, "/sessions/shared-name/usage", KEY_B).json()["session_id"] == b_id
    # Bob cannot read Alice's session by its stored id; ids are exact, never prefixes
    assert _get(server, f"/sessions/{a_id}/usage", KEY_A).status_code == 200
    assert _get(server, f"/sessions/{a_id}/usage", KEY_B).status_code == 404
    assert _get(server, f"/sessions/{a_id[:12]}/usage", KEY_A).status_code == 404
    only_alice = _stored_id(alice, "alice-only", "hello")
    assert _get(server, "/sessions/alice-only/usage", KEY_B).status_code == 404
    assert _get(server, f"/sessions/{only_alice}/usage", KEY_B).status_code == 404
    reset = httpx.post(server.base_url + "/sessions/alice-only/reset",
                       headers={"authorization": f"Bearer {KEY_B}"})
    assert reset.status_code == 404


def test_usage_report_and_reset(harness):
    server = harness.start()
    client = harness.client(server)
    first = _stored_id(client, "s", "hello")
    ask(client, "s", "again")
    report = _get(server, "/sessions/s/usage", KEY_A).json()
    assert report["session_name"] == "s" and report["session_id"] == first
    assert report["session"]["calls"] == 2
    assert report["session"]["cache_read"] == harness.fake.last.cache_read
    assert report["price_sources"] == ["genai-prices 0.2.3 (data of 2026-11)"]
    assert report["session"]["cost"] > 0
    reset = httpx.post(server.base_url + "/sessions/s/reset",
                       headers={"authorization": f"Bearer {KEY_A}"})
    assert reset.status_code == 200
    body = reset.json()
    assert body["previous_session_id"] == first and body["session_id"] != first
    assert _get(server, "/sessions/s/usage", KEY_A).json()["session"]["calls"] == 0
    assert _get(server, f"/sessions/{first}/usage", KEY_A).json()["session"]["calls"] == 2
    assert _get(server, "/sessions/never-used/usage", KEY_A).status_code == 404


def test_usage_of_an_unknown_model_is_unknown(harness):
    harness.config["model"] = "mystery-model-9"
    server = harness.start()
    _stored_id(harness.client(server), "s", "hello")
    report = _get(server, "/sessions/s/usage", KEY_A).json()
    assert report["session"]["calls"] == 1
    assert report["session"]["cost"] is None and report["session"]["savings"] is None
    assert report["unpriced_models"] == ["mystery-model-9"] and report["price_sources"] == []
    assert report["context"]["window"] is None
