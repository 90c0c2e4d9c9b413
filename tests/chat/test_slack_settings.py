"""Slack's settings and its pure parts (fast tier: no sockets): tokens, member ids and
base_url are checked with one clear line; events become messages once; a long answer's
cut points keep code fences balanced."""

from __future__ import annotations

import pytest
import yaml

from agent.errors import ConfigError
from frontend.config.settings import load_settings
from gateway.chat.slack.events import Seen, inbound
from gateway.chat.slack.reply import cut, merged, open_fence
from gateway.chat.slack.settings import slack_platform


def _settings(home, monkeypatch, slack=None, bot="xoxb-1", app="xapp-1"):
    for name, value in (("SLACK_BOT_TOKEN", bot), ("SLACK_APP_TOKEN", app)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    config = {"gateway": {"slack": slack}} if slack is not None else {}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return load_settings(home)


def test_slack_starts_when_both_tokens_are_set_and_checks_its_settings(hermes_home, monkeypatch):
    assert slack_platform(_settings(hermes_home, monkeypatch, bot=None, app=None)) is None
    adapter, policy = slack_platform(_settings(hermes_home, monkeypatch, {
        "allowed_users": ["U012AB3CD"], "edit_interval": 0.5, "base_url": "http://127.0.0.1:9"}))
    assert policy.allowed_users == {"U012AB3CD"} and adapter.edit_interval == 0.5
    assert adapter.base_url == "http://127.0.0.1:9/"
    cases = [({"allowed_users": [12345]}, "not a Slack member id"),
             ({"allowed_users": ["bob"]}, "not a Slack member id"),
             ({"edit_interval": 0}, "edit_interval"),
             ({"base_url": "slack.com/api"}, r"not an http\(s\) URL")]
    for slack, words in cases:
        with pytest.raises(ConfigError, match=words):
            slack_platform(_settings(hermes_home, monkeypatch, slack))
    with pytest.raises(ConfigError, match="SLACK_APP_TOKEN is not set"):
        slack_platform(_settings(hermes_home, monkeypatch, app=None))
    with pytest.raises(ConfigError, match="does not start with xoxb-"):
        slack_platform(_settings(hermes_home, monkeypatch, bot="xoxp-user-token"))


def test_events_become_messages_once_and_bots_are_never_answered():
    threads: set[tuple[str, str]] = set()
    mention = {"type": "app_mention", "channel": "C1", "user": "U1", "text": "<@UB> hi !x",
               "ts": "1.1"}
    msg = inbound(mention, "UB", threads)
    assert msg is not None and msg.text == "hi !x" and msg.thread_id == "1.1" and msg.addressed
    seen = Seen()
    assert seen.first("C1", "1.1") and not seen.first("C1", "1.1")  # the message twin
    small = Seen(size=2)
    assert all(small.first("C1", ts) for ts in ("1", "2", "3")) and small.first("C1", "1")
    assert ("C1", "3") in small and ("C1", "2") not in small  # bounded: the oldest forgotten
    assert inbound({**mention, "bot_id": "B2"}, "UB", threads) is None
    assert inbound({**mention, "user": "UB"}, "UB", threads) is None
    assert inbound({**mention, "subtype": "message_changed"}, "UB", threads) is None
    follow = {"type": "message", "channel": "C1", "user": "U1", "text": "!usage", "ts": "1.2",
              "thread_ts": "1.1", "channel_type": "channel"}
    assert not inbound(follow, "UB", threads).addressed
    threads.add(("C1", "1.1"))
    later = inbound(follow, "UB", threads)
    assert later.addressed and later.text == "/usage" and later.thread_id == "1.1"
    dm = inbound({"type": "message", "channel": "D1", "user": "U1", "text": "yo", "ts": "2.1",
                  "channel_type": "im"}, "UB", threads)
    assert not dm.group and dm.thread_id is None and dm.reply_thread == "2.1"
    in_thread = inbound({"type": "message", "channel": "D1", "user": "U1", "text": "and?",
                         "ts": "2.3", "thread_ts": "2.1", "channel_type": "im"}, "UB", threads)
    assert in_thread.thread_id is None and in_thread.reply_thread == "2.1"  # the root's ts


def test_cuts_fences_and_the_final_text_continue_what_was_streamed():
    text = "para one\n\npara two\nline three"
    assert cut(text, 15) == "para one\n\n" and cut(text, 100) == text
    assert open_fence("intro\n```python\nx = 1\n") == "```python"
    assert open_fence("```\nx\n```\n") is None
    assert merged("Let me look.\n\nThe answer", "The answer is 4.") == \
        "Let me look.\n\nThe answer is 4."
    assert merged("abc", "abcdef") == "abcdef"
    assert merged("", "x") == "x"


def test_one_worker_holds_the_socket_a_lease_per_app_token(hermes_home, monkeypatch):
    from gateway.chat.leader import Polling, lease_name

    adapter, _policy = slack_platform(_settings(hermes_home, monkeypatch, {"leader_ttl": 5}))
    assert isinstance(adapter, Polling) and adapter.leader_ttl == 5  # elect() gives it a lease
    assert lease_name(adapter.name, adapter.token).startswith("slack:")
    assert "xapp-1" not in lease_name(adapter.name, adapter.token)
