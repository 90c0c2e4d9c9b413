"""config.yaml `web:`: parsed into WebSettings, nested keys known, bad values one clear
error (fast tier)."""

from __future__ import annotations

import pytest

from agent.errors import ConfigError
from frontend.config.schema import unknown_keys
from frontend.config.settings import Settings
from frontend.config.web_setup import web_settings


def settings(tmp_path, raw):
    return Settings(home=tmp_path, raw=raw)


def test_no_web_section_means_public_addresses_and_no_search(tmp_path):
    web = web_settings(settings(tmp_path, {}))
    assert web.search is None and web.unoffered() == ("web_search",)
    assert not web.policy.names and not web.policy.networks


def test_allow_hosts_and_a_searxng_backend(tmp_path):
    web = web_settings(settings(tmp_path, {"web": {
        "allow_hosts": ["wiki.lan", "10.0.0.0/8"],
        "search": {"provider": "searxng", "url": "http://127.0.0.1:8888"}}}))
    assert web.policy.names == {"wiki.lan"} and [str(n) for n in web.policy.networks] == ["10.0.0.0/8"]
    assert (web.search.provider, web.search.url, web.unoffered()) == ("searxng", "http://127.0.0.1:8888", ())


def test_brave_takes_its_key_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("BRAVE_API_KEY", "bk-123")
    web = web_settings(settings(tmp_path, {"web": {"search": {"provider": "brave"}}}))
    assert (web.search.url, web.search.api_key) == ("https://api.search.brave.com", "bk-123")
    assert "bk-123" not in repr(web)


@pytest.mark.parametrize(("raw", "words"), [
    ({"web": 5}, "`web` must be a mapping"),
    ({"web": {"allow_hosts": "localhost"}}, "`web.allow_hosts` must be a list"),
    ({"web": {"allow_hosts": ["http://x/"]}}, "entry 'http://x/' is neither"),
    ({"web": {"search": "searxng"}}, "`web.search` must be a mapping"),
    ({"web": {"search": {"provider": "google"}}}, "`web.search.provider` must be one of searxng, brave"),
    ({"web": {"search": {"provider": "searxng"}}}, "`web.search.url` must be the http(s) URL"),
    ({"web": {"search": {"provider": "searxng", "url": "localhost:8888"}}}, "`web.search.url`"),
    ({"web": {"search": {"provider": "brave"}}}, "needs BRAVE_API_KEY"),
])
def test_a_malformed_web_setting_is_one_clear_error(tmp_path, monkeypatch, raw, words):
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    with pytest.raises(ConfigError) as caught:
        web_settings(settings(tmp_path, raw))
    assert words in str(caught.value) and "\n" not in caught.value.message


def test_web_keys_are_known_and_a_typo_warns():
    assert unknown_keys({"web": {"allow_hosts": [], "search": {"provider": "brave", "url": "x"}}}) == []
    assert unknown_keys({"web": {"allow_host": [], "search": {"provdier": "brave"}}}) == [
        "config.yaml: unknown setting `web.allow_host` ignored - did you mean `web.allow_hosts`?",
        "config.yaml: unknown setting `web.search.provdier` ignored - did you mean `web.search.provider`?",
    ]
