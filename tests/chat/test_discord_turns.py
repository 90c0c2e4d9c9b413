"""Discord through the real gateway: DMs, cache reuse, access, threads, the bot's own
messages (wire tier: FakeDiscord + fake provider on 127.0.0.1)."""

from __future__ import annotations

import pytest

from gateway.chat.hub import REFUSAL
from tests.chat.discord_harness import OWNER, STRANGER
from tests.fakes import Reply
from tests.fakes.discord_api import BOT, BOT_ID, CHANNEL_ID, NO_THREADS_ID
from tests.fakes.discord_rules import MESSAGE_CONTENT
from tests.helpers import system_of

pytestmark = pytest.mark.wire
DM = OWNER + 1  # FakeDiscord's DM channel of a user


def _errors(chats) -> list:
    return [c for c in chats.dc.calls if c.status >= 400]


def test_the_websocket_url_comes_from_gateway_bot_with_the_message_content_intent(discord_chats):
    chats = discord_chats
    chats.dc.heartbeat_ms = 200
    chats.start()
    chats.dc.wait_for(lambda: chats.dc.heartbeats >= 2, what="two heartbeats acknowledged")
    paths = [c.path for c in chats.dc.calls]
    assert paths[:2] == ["/users/@me", "/gateway/bot"]  # then the websocket it named
    (identify,) = chats.dc.identified
    assert identify["intents"] & MESSAGE_CONTENT
    assert identify["token"] == chats.dc.token


def test_a_dm_is_answered_and_the_next_messages_carry_history_and_read_the_cache(discord_chats):
    chats = discord_chats
    notes = chats.home / "memories"  # the operator's own notes: in no tenant's prompt
    notes.mkdir(parents=True, exist_ok=True)
    (notes / "MEMORY.md").write_text("OPERATOR-PRIVATE-NOTE the bank is example-bank\n",
                                     encoding="utf-8")
    server = chats.start()
    chats.fake.script(Reply("first answer"), Reply("second answer"), Reply("third answer"))
    for turn, text in enumerate(("hello", "and again", "once more"), start=1):
        chats.dc.dm(OWNER, text)
        chats.turns(server, turn)
    assert chats.dc.texts(DM) == ["first answer", "second answer", "third answer"]
    first, second, third = chats.fake.requests_for("anthropic")
    assert system_of(first) == system_of(second) == system_of(third)
    assert "hello" in repr(second.body["messages"]) and "and again" in repr(third.body["messages"])
    for later in (second, third):
        assert later.cache_read / later.prompt_tokens >= 0.9, (later.cache_read, later.prompt_tokens)
    assert chats.hub(server).gateway.cache.builds == 1
    assert "OPERATOR-PRIVATE-NOTE" not in repr([r.body for r in (first, second, third)])
    assert chats.dc.recorded("POST", DM) and any(c.path.endswith("/typing") for c in chats.dc.calls)
    assert _errors(chats) == []


def test_a_stranger_gets_one_refusal_and_never_reaches_the_model(discord_chats):
    chats = discord_chats
    server = chats.start()
    chats.dc.dm(STRANGER, "let me in")
    chats.dc.dm(STRANGER, "please")
    chats.dc.say(CHANNEL_ID, STRANGER, "hey bot", mention=True)
    chats.dc.dm(OWNER, "hi")
    chats.turns(server, 1)
    stats = chats.hub(server).stats["discord"]
    chats.dc.wait_for(lambda: stats.refused == 3, what="three refusals counted")
    assert chats.dc.texts(STRANGER + 1) == [REFUSAL]
    (in_channel,) = chats.dc.sent(CHANNEL_ID)  # a reply to the mention, not a thread
    assert in_channel["content"] == REFUSAL and in_channel["message_reference"]
    assert chats.dc.threads() == []
    assert len(chats.fake.requests_for("anthropic")) == 1
    assert "let me in" not in repr(chats.fake.last.body)


def test_a_mention_is_answered_once_in_its_thread_and_the_thread_is_the_session(discord_chats):
    chats = discord_chats
    server = chats.start()
    chats.fake.script(Reply("answer in the thread"), Reply("follow-up answer"))
    chats.dc.say(CHANNEL_ID, OWNER, "talking among ourselves")
    mention = chats.dc.say(CHANNEL_ID, OWNER, "what is 2+2?", mention=True)
    chats.turns(server, 1)
    (thread,) = chats.dc.threads()
    assert int(thread["id"]) == mention and thread["parent_id"] == str(CHANNEL_ID)
    assert chats.dc.texts(mention) == ["answer in the thread"]
    assert chats.dc.sent(CHANNEL_ID) == []  # nothing in the channel itself
    chats.dc.say(mention, OWNER, "and 3+3?")  # no mention needed in the bot's thread
    chats.turns(server, 2)
    assert chats.dc.texts(mention) == ["answer in the thread", "follow-up answer"]
    first, second = chats.fake.requests_for("anthropic")
    sent = repr(second.body["messages"])
    assert "what is 2+2?" in sent and "and 3+3?" in sent and "answer in the thread" in sent
    assert "talking among ourselves" not in sent and f"<@{BOT_ID}>" not in sent
    assert second.cache_read > 0
    assert len(chats.fake.requests_for("anthropic")) == 2  # each message answered once
    assert _errors(chats) == []


def test_where_threads_are_not_allowed_the_answer_is_a_reply_in_the_channel(discord_chats):
    chats = discord_chats
    server = chats.start()
    chats.fake.script(Reply("a reply instead"))
    mention = chats.dc.say(NO_THREADS_ID, OWNER, "hello there", mention=True)
    chats.turns(server, 1)
    (reply,) = chats.dc.sent(NO_THREADS_ID)
    assert reply["content"] == "a reply instead"
    assert str(reply["message_reference"]["message_id"]) == str(mention)
    assert [c.status for c in chats.dc.calls if c.path.endswith("/threads")] == [403]


def test_the_bot_never_answers_itself_or_another_bot(discord_chats):
    chats = discord_chats
    server = chats.start()
    chats.fake.script(Reply("only answer"))
    chats.dc.dm(OWNER, "hello")
    chats.turns(server, 1)  # its own answer came back over the websocket too
    chats.dc.say(DM, OWNER, f"<@{BOT_ID}> talking to myself", guild=False, author=BOT)
    other = {**BOT, "id": "999", "username": "otherbot"}
    chats.dc.say(CHANNEL_ID, OWNER, "beep", mention=True, author=other)
    chats.dc.dm(OWNER, "/help")  # answered without the model: the messages before were seen
    chats.dc.wait_for(lambda: any(t.startswith("Commands:") for t in chats.dc.texts(DM)))
    assert len(chats.fake.requests_for("anthropic")) == 1
    assert chats.hub(server).stats["discord"].messages == 2


def test_a_wrong_token_is_one_warning_and_the_rest_of_the_gateway_runs(discord_chats,
                                                                       monkeypatch, capfd):
    import yaml

    from frontend.config.settings import load_settings
    from gateway.boot import build_app
    from gateway.server import GatewayServer

    chats = discord_chats
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "not-the-token")
    (chats.home / "config.yaml").write_text(yaml.safe_dump(chats.config), encoding="utf-8")
    server = GatewayServer(build_app(load_settings(chats.home), chats.home)).start()
    chats.servers.append(server)
    assert chats.hub(server).adapters == []
    err = capfd.readouterr().err
    assert "hermes: warning: discord: cannot connect: Improper token has been passed." in err
    assert "Traceback" not in err
    assert [c.status for c in chats.dc.calls] == [401]
