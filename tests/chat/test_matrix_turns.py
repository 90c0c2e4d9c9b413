"""Matrix through the real gateway (wire tier: FakeMatrix's client-server API with the
real nio client, fake provider): DMs and the cache, strangers, mentions and threads,
bots, long answers within the event limit, paced edits, rate limits, encrypted rooms."""

from __future__ import annotations

import pytest

from tests.chat.matrix_harness import OTHER, OWNER, STRANGER
from tests.fakes import Reply
from tests.fakes.matrix_api import BOT, EVENT_MAX

pytestmark = pytest.mark.wire
GROUP = "!group:fake.local"


def test_a_dm_is_answered_and_the_second_message_reads_the_cached_prefix(matrices):
    server = matrices.start()
    matrices.fake.script(Reply("first answer"), Reply("second answer"))
    room = matrices.hs.dm(OWNER)
    matrices.joined(room)
    matrices.hs.say(room, OWNER, "hello")
    matrices.turns(server, 1)
    matrices.hs.say(room, OWNER, "and again")
    matrices.turns(server, 2)
    assert matrices.hs.texts(room) == ["first answer", "second answer"]
    first, second = matrices.fake.requests_for("anthropic")
    assert "hello" in repr(second.body["messages"])
    assert second.cache_read / second.prompt_tokens >= 0.9, second.cache_read
    assert matrices.hub(server).gateway.cache.builds == 1  # one cached agent for the DM
    assert room in matrices.hs.typing
    sent = [m.content for m in matrices.hs.messages(room)]
    sent += [e.content["m.new_content"] for e in matrices.hs.edits(room)]
    assert all(c["format"] == "org.matrix.custom.html" and c["m.mentions"] == {} for c in sent)
    assert {"first answer", "second answer"} <= {c["formatted_body"] for c in sent}


def test_a_stranger_is_refused_and_their_invite_ignored(matrices):
    server = matrices.start()
    matrices.fake.script(Reply("hi owner"))
    matrices.hs.invite("!strange:fake.local", STRANGER, direct=True)
    room = matrices.hs.dm(OWNER)
    matrices.joined(room)
    matrices.hs.rooms[room].members.add(STRANGER)  # a stranger in the owner's room
    matrices.hs.say(room, STRANGER, f"{BOT} let me in")
    matrices.hs.say(room, OWNER, "Hermes: hi")
    matrices.turns(server, 1)
    stats = matrices.hub(server).stats["matrix"]
    matrices.hs.wait_for(lambda: stats.refused == 1)
    assert BOT not in matrices.hs.rooms["!strange:fake.local"].members
    assert len(matrices.fake.requests_for("anthropic")) == 1
    assert "let me in" not in repr(matrices.fake.last.body)
    notice = matrices.hs.messages(room)[0].content
    assert notice["msgtype"] == "m.notice" and "only the people its owner allowed" in notice["body"]


def test_in_a_group_a_mention_starts_a_thread_that_is_the_session(matrices):
    server = matrices.start()
    matrices.fake.script(Reply("pill answer"), Reply("follow-up answer"), Reply("by name"))
    matrices.hs.invite(GROUP, OWNER, members=(OTHER, "@carol:fake.local"))
    matrices.joined(GROUP)
    matrices.hs.say(GROUP, OWNER, "chatter the bot ignores")
    matrices.hs.say(GROUP, OTHER, "a notice from a bot", msgtype="m.notice")
    root = matrices.hs.say(GROUP, OWNER, "Hermes what is 2+2?",  # Element: the id only in the pill
                           formatted=f'<a href="https://matrix.to/#/{BOT}">Hermes</a> what is 2+2?',
                           mentions=[BOT])
    matrices.turns(server, 1)
    assert matrices.hs.texts(GROUP, thread=root) == ["pill answer"]
    matrices.hs.say(GROUP, OWNER, "and 3+3?", thread=root)  # no mention needed in the thread
    matrices.turns(server, 2)
    sent = repr(matrices.fake.last.body["messages"])
    assert "what is 2+2?" in sent and "and 3+3?" in sent and "chatter" not in sent
    other = matrices.hs.say(GROUP, OTHER, "hermes, a new question")  # the display name
    matrices.turns(server, 3)
    assert "what is 2+2?" not in repr(matrices.fake.last.body["messages"])  # its own session
    assert matrices.hs.texts(GROUP, thread=other) == ["by name"]
    # the chatter (not addressed) and three questions: never the notice nor the bot's echoes
    assert matrices.hub(server).stats["matrix"].messages == 4


def test_a_long_answer_streams_by_paced_edits_and_arrives_whole_within_the_event_limit(matrices):
    prose = "\n\n".join(f"Paragraph {i}: " + "a **bold** <word> & more " * 40 for i in range(60))
    code = "\n".join(f"print('line {i}')" for i in range(1500))
    answer = f"{prose}\n\n```python\n{code}\n```\n\nThe end."
    assert len(answer) > 80_000
    server = matrices.start()
    matrices.fake.script(Reply(answer, chunks=40, delay=0.05))
    room = matrices.hs.dm(OWNER)
    matrices.joined(room)
    matrices.hs.say(room, OWNER, "write a lot")
    matrices.turns(server, 1)
    parts = matrices.hs.texts(room)
    assert len(parts) >= 5
    joined = "\n".join(parts)
    assert all(joined.count(f"Paragraph {i}: ") == 1 for i in range(60))
    assert all(joined.count(f"print('line {i}')\n") == 1 for i in range(1499))
    assert joined.rstrip().endswith("The end.")
    assert all(sum(line.startswith("```") for line in p.split("\n")) % 2 == 0 for p in parts)
    assert max(s.size for s in matrices.hs.sent) <= EVENT_MAX  # the fake refuses more anyway
    edits = matrices.hs.edits(room)
    assert edits  # it streamed while the turn ran
    first = matrices.hs.messages(room)[0]
    times = [first.time] + [e.time for e in edits
                            if e.content["m.relates_to"]["event_id"] == first.event_id]
    interim = times[:-1]  # the final edit follows at the turn's end
    gaps = [b - a for a, b in zip(interim, interim[1:], strict=False)]
    assert all(gap >= 0.45 for gap in gaps), gaps  # edit_interval 0.5, measured at the fake


def test_a_rate_limit_is_waited_out_and_nothing_is_lost(matrices):
    matrices.hs.limits.rate, matrices.hs.limits.burst = 1.0, 2
    server = matrices.start()
    adapter = matrices.adapter(server)
    adapter.budget.burst = 10  # a budget looser than the server: its 429s must be waited out
    adapter.budget.rate = 10.0
    answer = "\n\n".join(f"Part {i}: " + "x" * 12_000 for i in range(4))
    matrices.fake.script(Reply(answer))
    room = matrices.hs.dm(OWNER)
    matrices.joined(room)
    matrices.hs.say(room, OWNER, "four parts please")
    matrices.turns(server, 1)
    assert "".join(matrices.hs.texts(room)) == answer  # every character, in order
    assert adapter.rate_limited >= 1 and (429, "M_LIMIT_EXCEEDED") in matrices.hs.refused


def test_an_encrypted_room_is_told_it_is_not_supported(matrices, capfd):
    server = matrices.start()
    room = matrices.hs.invite("!secret:fake.local", OWNER, direct=True, encrypted=True)
    matrices.joined(room)
    matrices.hs.say(room, OWNER, "ciphertext", encrypted=True)
    notice = matrices.hs.wait_for(lambda: matrices.hs.messages(room), what="the notice")
    assert len(notice) == 1 and "does not support encrypted rooms" in notice[0].content["body"]
    assert matrices.hub(server).stats["matrix"].messages == 0
    assert "end-to-end encrypted: not supported yet" in capfd.readouterr().err


def test_a_message_sent_while_the_gateway_was_down_is_answered_after_a_restart(matrices):
    server = matrices.start()
    matrices.fake.script(Reply("before"), Reply("after the restart"))
    room = matrices.hs.dm(OWNER)
    matrices.joined(room)
    matrices.hs.say(room, OWNER, "hello")
    matrices.turns(server, 1)
    matrices.stop_all()
    matrices.hs.say(room, OWNER, "sent while it was down")
    server = matrices.start()
    matrices.turns(server, 1)
    assert matrices.hs.texts(room) == ["before", "after the restart"]
    requests = matrices.fake.requests_for("anthropic")
    assert len(requests) == 2  # "hello" was not answered again
    assert "sent while it was down" in repr(requests[1].body["messages"][-1])


def test_a_thread_goes_on_without_a_mention_after_a_restart(matrices):
    server = matrices.start()
    matrices.fake.script(Reply("first answer"), Reply("after the restart"))
    matrices.hs.invite(GROUP, OWNER, members=(OTHER, "@carol:fake.local"))
    matrices.joined(GROUP)
    root = matrices.hs.say(GROUP, OWNER, "Hermes: remember 42")
    matrices.turns(server, 1)
    matrices.stop_all()
    server = matrices.start()  # a new process knows no thread
    matrices.hs.say(GROUP, OWNER, "what did I ask you to remember?", thread=root)
    matrices.turns(server, 1)
    assert matrices.hs.texts(GROUP, thread=root) == ["first answer", "after the restart"]
    assert "remember 42" in repr(matrices.fake.last.body["messages"])  # the same session


def test_a_dangerous_command_waits_for_the_askers_reaction(matrices):
    from gateway.chat.base import chat_owner
    from gateway.workspaces import tenant_workspace
    from tests.fakes import ToolCall

    matrices.config["toolsets"] = ["terminal"]
    matrices.fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": "rm -rf *"})]),
                         Reply("cleaned"))
    server = matrices.start()
    matrices.hs.invite(GROUP, OWNER, members=(OTHER, "@carol:fake.local"))
    matrices.joined(GROUP)
    root = matrices.hs.say(GROUP, OWNER, "Hermes: clean the workspace")
    workspace = tenant_workspace(matrices.home, chat_owner("matrix", GROUP))
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "scratch.txt").write_text("x", encoding="utf-8")
    (question,) = matrices.hs.wait_for(lambda: matrices.hs.messages(GROUP, thread=root),
                                       what="the question")
    assert "rm -rf *" in question.content["body"] and "React ✅" in question.content["body"]
    matrices.hs.react(GROUP, OTHER, question.event_id, "✅")  # allowed, but not the asker
    told = matrices.hs.wait_for(lambda: [m for m in matrices.hs.messages(GROUP, thread=root)
                                         if m.content["msgtype"] == "m.notice"])
    assert told[0].content["body"] == "Only the person who asked can answer this."
    assert (workspace / "scratch.txt").exists()
    matrices.hs.react(GROUP, OWNER, question.event_id, "✅")
    matrices.turns(server, 1)
    assert not (workspace / "scratch.txt").exists()
    assert matrices.hs.texts(GROUP, thread=root)[0].startswith("Approved once: rm -rf *")


def test_two_busy_rooms_share_the_accounts_limit_and_meet_no_rate_limit(matrices):
    server = matrices.start()  # the budget sized to the homeserver's: 2/s after 8 of its 10
    answer = "\n\n".join(f"Part {i}: " + "z" * 12_000 for i in range(6))
    matrices.fake.script(Reply(answer), Reply(answer))
    first, second = matrices.hs.dm(OWNER), matrices.hs.dm(OTHER)
    matrices.joined(first)
    matrices.joined(second)
    matrices.hs.say(first, OWNER, "six parts please")
    matrices.hs.say(second, OTHER, "six parts for me too")
    matrices.turns(server, 2)
    assert "".join(matrices.hs.texts(first)) == answer == "".join(matrices.hs.texts(second))
    assert matrices.hs.refused == [] and matrices.adapter(server).rate_limited == 0
