"""Slack through the real gateway (wire tier: FakeSlack's Web API + Socket Mode, fake
provider): DMs, cache reuse, channel threads, access, the bot's own messages."""

from __future__ import annotations

import pytest

from tests.chat.slack_harness import CHANNEL, OWNER, STRANGER
from tests.fakes import Reply
from tests.fakes.slack_api import BOT_ID, BOT_USER

pytestmark = pytest.mark.wire
DM = f"D{OWNER}"


def test_a_dm_is_answered_and_later_messages_read_the_cached_prefix(slacks):
    (slacks.home / "memories").mkdir(exist_ok=True)
    (slacks.home / "memories" / "MEMORY.md").write_text("operator secret: the vault code is 4711\n")
    server = slacks.start()
    slacks.fake.script(Reply("first answer"), Reply("second answer"), Reply("third answer"))
    slacks.slack.dm(OWNER, "hello")
    slacks.turns(server, 1)
    slacks.slack.dm(OWNER, "and again")
    slacks.turns(server, 2)
    slacks.slack.dm(OWNER, "once more")
    slacks.turns(server, 3)
    assert slacks.slack.texts(DM) == ["first answer", "second answer", "third answer"]
    first, second, third = slacks.fake.requests_for("anthropic")
    assert "hello" in repr(second.body["messages"]) and "and again" in repr(third.body["messages"])
    for later in (second, third):
        assert later.cache_read / later.prompt_tokens >= 0.9, later.cache_read
    assert slacks.hub(server).gateway.cache.builds == 1  # one cached agent for the DM
    assert slacks.slack.recorded("assistant.threads.setStatus", DM)  # "is thinking…"
    assert "4711" not in repr(first.body)  # a Slack user is a tenant: not the operator's notes
    # Bolt's authorization comes from start()'s auth.test: no call per event, whose
    # concurrent answers could reorder a burst of first events
    assert len(slacks.slack.recorded("auth.test")) == 1


def test_a_stranger_gets_one_refusal_and_never_reaches_the_model(slacks):
    server = slacks.start()
    slacks.fake.script(Reply("hi owner"))
    slacks.slack.dm(STRANGER, "let me in")
    slacks.slack.dm(STRANGER, "please")
    slacks.slack.dm(OWNER, "hi")
    slacks.turns(server, 1)
    stats = slacks.hub(server).stats["slack"]
    slacks.slack.wait_for(lambda: stats.refused == 2)
    assert slacks.slack.texts(f"D{STRANGER}") == [
        "Sorry, this bot answers only the people its owner allowed."]
    assert len(slacks.fake.requests_for("anthropic")) == 1
    assert "let me in" not in repr(slacks.fake.last.body)


def test_a_channel_mention_is_answered_once_in_its_thread_and_the_thread_goes_on(slacks):
    server = slacks.start()
    slacks.fake.script(Reply("answer in the thread"), Reply("the follow-up's answer"))
    slacks.slack.say(CHANNEL, OWNER, "chatter the bot ignores")
    root = slacks.slack.mention(CHANNEL, OWNER, "what is 2+2?")  # app_mention + message
    slacks.turns(server, 1)
    assert slacks.slack.texts(CHANNEL, thread_ts=root) == ["answer in the thread"]
    assert slacks.slack.texts(CHANNEL) == ["answer in the thread"]  # nothing top-level
    slacks.slack.say(CHANNEL, OWNER, "and 3+3?", thread_ts=root)  # no mention needed
    slacks.turns(server, 2)
    assert slacks.slack.texts(CHANNEL, thread_ts=root)[-1] == "the follow-up's answer"
    requests = slacks.fake.requests_for("anthropic")
    assert len(requests) == 2  # the mention arrived twice and was answered once
    sent = repr(requests[1].body["messages"])
    assert "what is 2+2?" in sent and "and 3+3?" in sent and "chatter" not in sent
    assert BOT_USER not in sent
    other = slacks.slack.mention(CHANNEL, OWNER, "a new thread")
    slacks.turns(server, 3)
    assert "what is 2+2?" not in repr(slacks.fake.last.body["messages"])  # its own session
    assert slacks.slack.texts(CHANNEL, thread_ts=other)


def test_the_bot_never_answers_a_bot_message(slacks):
    server = slacks.start()
    slacks.fake.script(Reply("only this"))
    root = slacks.slack.mention(CHANNEL, OWNER, "start")
    slacks.turns(server, 1)
    slacks.slack.say(CHANNEL, BOT_USER, "my own reply", thread_ts=root, bot_id=BOT_ID)
    slacks.slack.say(CHANNEL, "U0OTHERBOT", "another bot", thread_ts=root, bot_id="B0OTHER")
    slacks.slack.dm(OWNER, "after the bots")
    slacks.turns(server, 2)
    assert slacks.hub(server).stats["slack"].messages == 2
    assert "my own reply" not in repr(slacks.fake.last.body)


def test_a_thread_goes_on_without_a_mention_after_a_restart(slacks):
    server = slacks.start()
    slacks.fake.script(Reply("first answer"), Reply("after the restart"))
    root = slacks.slack.mention(CHANNEL, OWNER, "remember 42")
    slacks.turns(server, 1)
    slacks.stop_all()
    slacks.slack.wait_for(lambda: slacks.slack.open_sockets == 0, what="the socket closed")
    server = slacks.start()  # a new process would know no thread either
    slacks.slack.say(CHANNEL, OWNER, "what did I ask you to remember?", thread_ts=root)
    slacks.turns(server, 1)
    assert slacks.slack.texts(CHANNEL, thread_ts=root) == ["first answer", "after the restart"]
    assert "remember 42" in repr(slacks.fake.last.body["messages"])  # the same session
    slacks.slack.say(CHANNEL, OWNER, "a thread the bot never answered", thread_ts="1.000100")
    slacks.slack.dm(OWNER, "done")
    slacks.fake.script(Reply("ok"))
    slacks.turns(server, 2)
    assert len(slacks.fake.requests_for("anthropic")) == 3


def test_commands_are_written_with_a_bang(slacks):
    (slacks.home / "commands").mkdir()
    (slacks.home / "commands" / "standup.md").write_text(
        "---\ndescription: Draft my standup\n---\nDraft a standup about $ARGUMENTS.\n")
    server = slacks.start()
    slacks.fake.script(Reply("hello there"), Reply("standup drafted"))
    slacks.slack.dm(OWNER, "hello")
    slacks.turns(server, 1)
    for command in ("!usage", "!nosuch", "!help"):
        slacks.slack.dm(OWNER, command)
    shown = slacks.slack.wait_for(lambda: len(slacks.slack.texts(DM)) >= 4 and
                                  slacks.slack.texts(DM), what="three notices")
    usage = next(t for t in shown if t.startswith("Cache hit rate: "))  # /help skips the queue
    assert "Calls: 1" in usage and "Unknown command /nosuch. Try !help." in shown
    billed = slacks.fake.requests_for("anthropic")[0].usage  # what the fake reported
    written = billed["cache_creation_input_tokens"]
    assert written > 0 and f"  cache write {written:,}\n" in usage  # left out
    assert f"  cache read {billed['cache_read_input_tokens']:,}\n" in usage
    assert f"  uncached {billed['input_tokens']:,}\n" in usage
    listing = next(t for t in shown if t.startswith("Commands:"))
    assert "!usage - " in listing and "!standup - Draft my standup" in listing
    slacks.slack.dm(OWNER, "!standup the release")
    slacks.turns(server, 2)
    assert "Draft a standup about the release." in repr(slacks.fake.last.body["messages"][-1])
    slacks.slack.dm(OWNER, "!new")
    slacks.slack.wait_for(lambda: slacks.slack.texts(DM)[-1].startswith("New session"))


def test_the_hermes_slash_command_runs_a_command_in_a_dm(slacks):
    server = slacks.start()
    slacks.fake.script(Reply("an answer"), Reply("the answer again"))
    slacks.slack.dm(OWNER, "hello")
    slacks.turns(server, 1)
    slacks.slack.slash(OWNER, DM, "usage")
    usage = slacks.slack.wait_for(lambda: [t for t in slacks.slack.texts(DM)
                                           if t.startswith("Cache hit rate")], what="/usage")
    assert "Calls: 1" in usage[0]
    slacks.slack.slash(OWNER, DM, "retry")  # a command that calls the model: posted whole
    slacks.turns(server, 2)
    assert slacks.slack.texts(DM)[-1] == "the answer again"
    assert slacks.slack.sent(DM)[-1].thread_ts is None  # no thread to stream into
    slacks.slack.slash(OWNER, CHANNEL, "usage")
    hint = slacks.slack.wait_for(lambda: slacks.slack.recorded("chat.postEphemeral", CHANNEL))
    assert "`!usage`" in hint[0].params["text"]


def test_a_wrong_token_is_one_clear_line(slacks):
    import asyncio

    from gateway.chat.slack.adapter import SlackAdapter, SlackRefused
    from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN

    for bot, app, name in (("xoxb-wrong", APP_TOKEN, "SLACK_BOT_TOKEN"),
                           (BOT_TOKEN, "xapp-wrong", "SLACK_APP_TOKEN")):
        adapter = SlackAdapter(bot, app, base_url=slacks.slack.base_url)
        with pytest.raises(SlackRefused) as caught:
            asyncio.run(adapter.start(None))
        assert str(caught.value) == f"Slack refused {name}: invalid_auth"
    assert slacks.slack.open_sockets == 0



def test_bang_model_answers_in_slacks_words_not_an_http_clients(slacks):
    """Before: `!model NAME` told a Slack user to send model "hermes" in a request."""
    server = slacks.start()
    slacks.fake.script(Reply("hello there"))
    slacks.slack.dm(OWNER, "hello")
    slacks.turns(server, 1)
    slacks.slack.dm(OWNER, "!model")
    shown = slacks.slack.wait_for(lambda: [t for t in slacks.slack.texts(DM)
                                           if t.startswith("This session uses")], what="!model")
    assert "Switch with !model NAME" in shown[0]
    slacks.slack.dm(OWNER, "!model other-model")
    switched = slacks.slack.wait_for(lambda: [t for t in slacks.slack.texts(DM)
                                              if "other-model" in t], what="the switch")
    assert "request" not in switched[0] and "`model`" not in switched[0], switched[0]
