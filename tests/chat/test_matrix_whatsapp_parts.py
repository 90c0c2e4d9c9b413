"""Matrix's and WhatsApp's settings and pure parts (fast tier: no sockets): config
mistakes are one clear line; a Matrix part's largest event fits 65,536 bytes whatever
the text; mentions; WhatsApp's signature and handshake, duplicates, statuses."""

from __future__ import annotations

import hashlib
import hmac
import json

import pytest
import yaml

from agent.cron.targets import problem
from agent.errors import ConfigError
from frontend.config.settings import load_settings
from gateway.chat.matrix.events import inbound, mentioned
from gateway.chat.matrix.reply import ENVELOPE, edit, message, parts, size
from gateway.chat.matrix.settings import matrix_platform
from gateway.chat.whatsapp.settings import whatsapp_platform
from gateway.chat.whatsapp.webhook import Seen, challenge, messages, signed

BOT = "@hermes:example.org"


def _settings(home, monkeypatch, gateway, env):
    for name, value in env.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    (home / "config.yaml").write_text(yaml.safe_dump({"gateway": gateway}), encoding="utf-8")
    return load_settings(home)


def test_matrix_settings_take_ids_as_they_are_and_say_what_is_wrong(hermes_home, monkeypatch):
    good = {"homeserver": "http://127.0.0.1:9", "user_id": BOT,
            "allowed_users": ["@alice:example.org"], "edit_interval": 1}
    env = {"MATRIX_ACCESS_TOKEN": "syt_x"}
    assert matrix_platform(_settings(hermes_home, monkeypatch, {}, env)) is None
    adapter, policy = matrix_platform(_settings(hermes_home, monkeypatch, {"matrix": good}, env))
    assert policy.allowed_users == {"@alice:example.org"} and adapter.edit_interval == 1
    cases = [({**good, "allowed_users": [12345]}, "not a Matrix user id"),
             ({**good, "user_id": "hermes"}, "not a Matrix user id"),
             ({**good, "homeserver": "matrix.org"}, r"not an http\(s\) URL")]
    for matrix, words in cases:
        with pytest.raises(ConfigError, match=words):
            matrix_platform(_settings(hermes_home, monkeypatch, {"matrix": matrix}, env))
    with pytest.raises(ConfigError, match="MATRIX_ACCESS_TOKEN is not set"):
        matrix_platform(_settings(hermes_home, monkeypatch, {"matrix": good},
                                  {"MATRIX_ACCESS_TOKEN": None}))


def test_whatsapp_settings_need_three_secrets_and_normalise_numbers(hermes_home, monkeypatch):
    env = {"WHATSAPP_ACCESS_TOKEN": "t", "WHATSAPP_APP_SECRET": "s", "WHATSAPP_VERIFY_TOKEN": "v"}
    good = {"phone_number_id": 106540352242922, "allowed_users": ["+1 (555) 000-1111"]}
    adapter, policy = whatsapp_platform(_settings(hermes_home, monkeypatch, {"whatsapp": good}, env))
    assert policy.allowed_users == {"15550001111"} and adapter.phone_number_id == "106540352242922"
    with pytest.raises(ConfigError, match="WHATSAPP_APP_SECRET is not set"):
        whatsapp_platform(_settings(hermes_home, monkeypatch, {"whatsapp": good},
                                    {**env, "WHATSAPP_APP_SECRET": None}))
    for whatsapp, words in (({**good, "allowed_users": ["alice"]}, "not a phone number"),
                            ({**good, "phone_number_id": "abc"}, "not a number id"),
                            ({**good, "listen": "nowhere"}, "not host:port")):
        with pytest.raises(ConfigError, match=words):
            whatsapp_platform(_settings(hermes_home, monkeypatch, {"whatsapp": whatsapp}, env))


@pytest.mark.parametrize("unit", ["a", "<&>", "é", "😀"])
def test_every_matrix_part_and_its_edit_fit_one_event_with_nothing_lost(unit):
    text = "\n\n".join(f"Paragraph {i}: " + unit * 3000 for i in range(12))
    pieces = parts(text)
    assert "".join(pieces).replace("\n", "") == text.replace("\n", "")
    for piece in pieces:
        assert size(edit("$" + "x" * 60, piece)) + ENVELOPE <= 65_536
        assert size(message(piece, thread="$root", reply_to="$root")) + ENVELOPE <= 65_536


def test_a_mention_is_an_id_a_name_a_pill_or_m_mentions():
    assert mentioned({"body": "hi @hermes:example.org"}, BOT, "Hermes")
    assert mentioned({"body": "hermes: hi"}, BOT, "Hermes")
    assert not mentioned({"body": "hermetic seal"}, BOT, "Hermes")
    assert mentioned({"body": "Herm", "formatted_body":
                      f'<a href="https://matrix.to/#/{BOT}">Herm</a>'}, BOT, "Hermes")
    assert mentioned({"body": "x", "m.mentions": {"user_ids": [BOT]}}, BOT, "Hermes")
    event = {"type": "m.room.message", "sender": BOT, "event_id": "$1",
             "content": {"msgtype": "m.text", "body": "my own"}}
    assert inbound("!r", event, bot=BOT, name="Hermes", members=2, threads=()) is None
    notice = {**event, "sender": "@bot:x", "content": {"msgtype": "m.notice", "body": "beep"}}
    assert inbound("!r", notice, bot=BOT, name="Hermes", members=2, threads=()) is None


def test_whatsapp_signature_handshake_duplicates_and_statuses():
    body = b'{"entry": []}'
    good = "sha256=" + hmac.new(b"secret", body, hashlib.sha256).hexdigest()
    assert signed(body, good, "secret")
    assert not signed(body + b" ", good, "secret") and not signed(body, None, "secret")
    assert not signed(body, good, "other") and not signed(body, good.replace("sha256=", ""), "secret")
    params = {"hub.mode": "subscribe", "hub.verify_token": "v", "hub.challenge": "42"}
    assert challenge(params, "v") == "42"
    assert challenge({**params, "hub.verify_token": "w"}, "v") is None
    assert challenge(params, "") is None
    seen = Seen()
    assert seen.first("wamid.1") and not seen.first("wamid.1")
    value = {"metadata": {"phone_number_id": "7"},
             "statuses": [{"id": "w", "status": "failed"}, {"id": "x", "status": "read"}],
             "messages": [{"from": "1555", "id": "wamid.2", "type": "text", "text": {"body": "hi"}}]}
    payload = json.loads(json.dumps({"entry": [{"changes": [{"value": value}]}]}))
    found, failed = messages(payload, "7")
    assert [m.text for m in found] == ["hi"] and [s["id"] for s in failed] == ["w"]
    assert messages(payload, "8") == ([], [])  # another number's webhook


def test_matrix_and_whatsapp_targets_are_checked_when_a_job_is_made():
    ready = frozenset({"matrix", "whatsapp"})
    assert problem("matrix:!abc:example.org", ready) is None
    assert problem("whatsapp:15550001111", ready) is None
    assert "not a Matrix room id" in problem("matrix:#alias:example.org", ready)
    assert "not a phone number" in problem("whatsapp:+1 555", ready)
    assert "MATRIX_ACCESS_TOKEN" in problem("matrix:!abc:example.org", frozenset())
