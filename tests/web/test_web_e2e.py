"""web_fetch and web_search through the real CLI (`hermes -q`), the real SDK and the
fake provider server: the page's text reaches the model framed and named, and the tools
and system bytes stay the same on every request of the session (wire tier)."""

from __future__ import annotations

import json

import pytest

from tests.fakes import Reply, ToolCall
from tests.helpers import anthropic_env, hermes

pytestmark = pytest.mark.wire


def test_a_fetched_page_and_search_results_reach_the_model_with_stable_prefix_bytes(
        fake_provider, hermes_home, site, tmp_path):
    (hermes_home / "config.yaml").write_text(
        "web:\n  allow_hosts: [127.0.0.1]\n"
        f"  search: {{provider: searxng, url: '{site.url}'}}\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("web_search", {"query": "lock files", "count": 2})]),
        Reply(tool_calls=[ToolCall("web_fetch", {"url": site.url + "/article"})]),
        Reply(tool_calls=[ToolCall("web_fetch", {"url": site.url + "/to-private"})]),
        Reply(text="Lock files pin versions."),
    )
    result = hermes(["-q", "what does the post say about lock files?", "--json"],
                    anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["answer"] == "Lock files pin versions."
    records = [r for r in fake_provider.requests if r.path.endswith("/messages")]
    assert len(records) == 4
    tools = [json.dumps(r.body["tools"], sort_keys=True) for r in records]
    # the text bytes (cache markers move by design: agent/modelcall/caching.py)
    system = ["".join(block["text"] for block in r.body["system"]) for r in records]
    assert len(set(tools)) == 1 and len(set(system)) == 1  # no byte of the prefix moved
    names = [t["name"] for t in records[0].body["tools"]]
    assert "web_fetch" in names and "web_search" in names
    assert "web_fetch" in system[0] and "web pages" in system[0]

    def last_result(record) -> str:
        blocks = record.body["messages"][-1]["content"]
        return next(b for b in blocks if b.get("type") == "tool_result")["content"]

    found = last_result(records[1])
    assert found.startswith('<untrusted source="web_search">\nWeb search results for')
    page = last_result(records[2])
    assert page.startswith(f'<untrusted source="web_fetch">\nWeb page fetched from {site.url}/article')
    assert "A lock file records the exact version of every package" in page
    assert "FOOTER-MARKER" not in page and "SCRIPT-MARKER" not in page
    refused = last_result(records[3])
    assert "refused to fetch http://127.0.0.2:" in refused and site.trap_untouched()


def test_without_a_backend_web_search_is_not_offered(fake_provider, hermes_home, tmp_path):
    fake_provider.script(Reply(text="ok"))
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    names = [t["name"] for t in fake_provider.requests[-1].body["tools"]]
    assert "web_fetch" in names and "web_search" not in names


@pytest.mark.parametrize(("yaml_text", "words"), [
    ("web: {allow_hosts: localhost}\n", "`web.allow_hosts` must be a list"),
    ("web: {search: {provider: brave}}\n", "`web.search.provider: brave` needs BRAVE_API_KEY"),
])
def test_a_malformed_web_setting_stops_the_cli_with_one_line(fake_provider, hermes_home, tmp_path,
                                                            yaml_text, words):
    (hermes_home / "config.yaml").write_text(yaml_text)
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"hermes: error: config.yaml: {words}" in result.stderr
    assert fake_provider.requests == []
