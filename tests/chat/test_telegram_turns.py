"""Telegram through the real gateway: cache reuse per chat, restart, access, groups,
topics, concurrency (wire tier: fake Bot API + fake provider on 127.0.0.1)."""

from __future__ import annotations

import pytest

from tests.fakes import Reply
from tests.helpers import GROUP, OWNER, STRANGER, system_of

pytestmark = pytest.mark.wire


def test_second_message_of_a_chat_reads_the_cache_and_restart_reuses_the_prompt(chats):
    server = chats.start()
    chats.fake.script(Reply("first answer"), Reply("second answer"))
    chats.tg.message(OWNER, OWNER, "hello")
    chats.turns(server, 1)
    chats.tg.message(OWNER, OWNER, "and again")
    chats.turns(server, 2)
    first, second = chats.fake.requests_for("anthropic")
    assert system_of(first) == system_of(second)
    assert first.cache_read == 0 and second.cache_read > 0
    assert first.body["tools"] == second.body["tools"]
    assert chats.tg.shown(OWNER) == ["first answer", "second answer"]
    assert chats.hub(server).gateway.cache.builds == 1
    assert chats.tg.recorded("setMyCommands")
    assert chats.tg.recorded("sendChatAction", OWNER)
    chats.stop_all()

    server = chats.start()
    chats.fake.script(Reply("after restart"))
    chats.tg.message(OWNER, OWNER, "still there?")
    chats.turns(server, 1)
    after = chats.fake.last
    assert system_of(after) == system_of(second)
    assert after.body["tools"] == second.body["tools"]
    assert after.cache_read >= second.cache_read > 0
    assert "and again" in repr(after.body["messages"])  # the stored session was resumed


def test_an_unauthorised_user_gets_one_refusal_and_never_reaches_the_model(chats):
    server = chats.start()
    chats.tg.message(STRANGER, STRANGER, "let me in")
    chats.tg.message(STRANGER, STRANGER, "please")
    chats.tg.message(OWNER, OWNER, "hi")
    chats.turns(server, 1)
    stats = chats.hub(server).stats["telegram"]
    chats.tg.wait_for(lambda: stats.refused == 2)
    assert [t for t in chats.tg.shown(STRANGER)] == [
        "Sorry, this bot answers only the people its owner allowed."]
    assert len(chats.fake.requests_for("anthropic")) == 1
    assert "let me in" not in repr(chats.fake.last.body)


def test_groups_answer_only_when_mentioned_or_replied_to(chats):
    server = chats.start(allowed_chats=[GROUP])
    chats.fake.script(Reply("answer to the mention"), Reply("answer to the reply"))
    chats.tg.message(GROUP, 5, "talking among ourselves", chat_type="supergroup")
    chats.tg.message(GROUP, 5, "what is 2+2?", chat_type="supergroup", mention=True)
    chats.turns(server, 1)
    bot_message = chats.tg.sent(GROUP)[0]["message_id"]
    chats.tg.message(GROUP, 6, "and 3+3?", chat_type="supergroup", reply_to=bot_message)
    chats.turns(server, 2)
    chats.tg.message(-5, STRANGER, "chatter in a group nobody allowed", chat_type="group")
    chats.tg.message(-5, STRANGER, "hey bot", chat_type="group", mention=True)
    chats.tg.wait_for(lambda: chats.tg.shown(-5), what="the refusal in the other group")
    assert chats.tg.shown(-5) == ["Sorry, this bot answers only the people its owner allowed."]
    assert chats.hub(server).stats["telegram"].refused == 1  # the chatter was not refused
    sent = repr(chats.fake.last.body["messages"])
    assert "what is 2+2?" in sent and "and 3+3?" in sent
    assert "talking among ourselves" not in sent and "@hermes_bot" not in sent
    assert chats.hub(server).stats["telegram"].messages == 5


def test_groups_per_user_sessions_and_forum_topics_are_separate_sessions(chats):
    server = chats.start(allowed_chats=[GROUP], groups="all", per_user_in_group=True)
    chats.tg.message(GROUP, 5, "I am user five", chat_type="supergroup")
    chats.turns(server, 1)
    chats.tg.message(GROUP, 6, "I am user six", chat_type="supergroup")
    chats.turns(server, 2)
    chats.tg.message(GROUP, 5, "topic message", chat_type="supergroup", thread_id=77)
    chats.turns(server, 3)
    bodies = [repr(r.body["messages"]) for r in chats.fake.requests_for("anthropic")]
    assert "I am user five" not in bodies[1]
    assert "I am user five" not in bodies[2] and "I am user six" not in bodies[2]
    topic = [m for m in chats.tg.sent(GROUP) if m.get("message_thread_id") == 77]
    assert len(topic) == 1
    assert chats.hub(server).status()["platforms"]["telegram"]["sessions_cached"] == 3


def test_concurrent_chats_each_get_their_own_answers(chats):
    users = [OWNER, 112, 113, 114]
    server = chats.start(allowed_users=users)
    chats.fake.responder = lambda rec: Reply(f"echo {rec.body['messages'][-1]['content']!r}"[:60])
    for round_ in range(2):
        for user in users:
            chats.tg.message(user, user, f"m{round_} from {user}")
    chats.turns(server, 2 * len(users))
    for user in users:
        shown = chats.tg.shown(user)
        assert len(shown) == 2 and all(f"from {user}" in text for text in shown), shown
    health = chats.hub(server).status()["platforms"]["telegram"]
    assert health["connected"] and health["turns"] == 8 and health["sessions_cached"] == 4
    assert health["hit_rate"] > 0


def test_the_daily_spend_limit_is_per_chat(chats):
    chats.config["gateway"]["daily_usd_per_key"] = 0.000001  # the first call spends more
    server = chats.start(allowed_users=[OWNER, 112])
    chats.tg.message(OWNER, OWNER, "spend something")
    chats.turns(server, 1)
    chats.tg.message(OWNER, OWNER, "and more")
    chats.tg.wait_for(lambda: any("daily spend limit" in t for t in chats.tg.shown(OWNER)))
    assert "for this chat" in chats.tg.shown(OWNER)[-1]
    chats.tg.message(112, 112, "another chat has its own limit")
    chats.turns(server, 2)
    assert len(chats.fake.requests_for("anthropic")) == 2
