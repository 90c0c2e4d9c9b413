"""Gateway tenants fetch under the operator's one web policy (wire tier: real uvicorn,
the real openai client, the fake provider, a local site): a listed host works for any
key, a private address is refused for every key with no connection made, and each
session keeps its own copies."""

from __future__ import annotations

import json

import pytest

from tests.fakes.script import Reply, ToolCall
from tests.fakes.web_site import serve
from tests.helpers import KEY_A, KEY_B, ask

pytestmark = pytest.mark.wire


@pytest.fixture
def gateway(harness):
    harness.config["toolsets"] = ["web"]
    harness.config["web"] = {"allow_hosts": ["127.0.0.1"]}
    harness.config["sandbox"] = {"network": "public"}  # off (the gateway's default): no web tools
    return harness, harness.start()


@pytest.fixture
def site():
    with serve() as running:
        yield running


def _fetch(url: str) -> Reply:
    return Reply(tool_calls=[ToolCall("web_fetch", {"url": url})])


def _tool_result(record) -> str:
    blocks = record.body["messages"][-1]["content"]
    return next(b for b in blocks if b.get("type") == "tool_result")["content"]


def test_every_tenant_gets_the_operators_web_policy(gateway, site):
    harness, server = gateway
    alice, bob = harness.client(server, KEY_A), harness.client(server, KEY_B)
    harness.fake.script(_fetch(site.url + "/article"), Reply(text="read it"))
    ask(alice, "a1", "read the post")
    assert "A lock file records the exact version" in _tool_result(harness.fake.last)
    for url in (site.trap_url, "http://169.254.169.254/latest/meta-data/", "http://[::1]:9/"):
        harness.fake.script(_fetch(url), Reply(text="refused"))
        ask(bob, "b1", "fetch it")
        assert f"refused to fetch {url}" in _tool_result(harness.fake.last)
    harness.fake.script(_fetch(site.url + "/article"), Reply(text="read it too"))
    ask(bob, "b1", "read the post")
    assert "A lock file records the exact version" in _tool_result(harness.fake.last)
    assert site.hits == ["/article", "/article"]  # one fetch per session, none shared
    assert site.trap_untouched()
    assert "web_search" not in json.dumps(harness.fake.last.body["tools"])
