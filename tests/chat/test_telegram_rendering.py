"""What a Telegram user sees: long replies split, markup fallback, flood limits,
queued messages, /stop, /usage (wire tier: fake Bot API + fake provider)."""

from __future__ import annotations

import threading

import pytest

from gateway.chat.text import split_message, to_html, utf16_len
from tests.fakes import Reply
from tests.fakes.telegram_rules import visible_text
from tests.helpers import OWNER

pytestmark = pytest.mark.wire


def test_a_long_reply_is_split_at_boundaries_with_utf16_lengths_and_balanced_fences(chats):
    code = "\n".join(f"print('line {i} 😀')" for i in range(260))
    prose = "\n\n".join(f"Paragraph {i}: " + "🙂 word " * 60 for i in range(8))
    chats.fake.script(Reply(f"{prose}\n\n```python\n{code}\n```\n\nThe end."))
    chats.tg.flood_limit = 2  # pieces sent back to back meet the per-chat flood limit
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "write a lot")
    chats.turns(server, 1)
    shown = chats.tg.shown(OWNER)  # the fake parsed each HTML text: every piece is valid
    assert len(shown) >= 3
    assert all(utf16_len(text) <= 4096 for text in shown)
    assert any(len(text) <= 4096 < utf16_len(text) + 1000 for text in shown)
    sent = [m["text"] for m in chats.tg.sent(OWNER)]
    assert all(t.count("<pre>") == t.count("</pre>") for t in sent)
    joined = "\n".join(shown)
    assert all(f"print('line {i} 😀')" in joined for i in (0, 130, 259))
    assert "Paragraph 7" in joined and shown[-1].endswith("The end.")
    assert any(c.status == 429 for c in chats.tg.recorded(chat_id=OWNER))


def test_markup_rejected_by_telegram_is_sent_again_as_plain_text(chats):
    chats.fake.script(Reply("Use **bold** and `code` <here> & there"))
    server = chats.start()
    chats.tg.reject_markup = 1
    chats.tg.message(OWNER, OWNER, "format something")
    chats.turns(server, 1)
    final = chats.tg.sent(OWNER)[-1]
    assert final["text"] == "Use **bold** and `code` <here> & there"
    assert final.get("parse_mode") is None
    refused = [c for c in chats.tg.recorded(chat_id=OWNER) if c.status == 400]
    assert refused and refused[0].params["parse_mode"] == "HTML"


def test_a_429_is_honoured_for_its_retry_after(chats):
    chats.fake.script(Reply("short answer"))
    server = chats.start()
    chats.tg.force_429(OWNER, retry_after=1)
    chats.tg.message(OWNER, OWNER, "hi")
    chats.turns(server, 1)
    calls = [c for c in chats.tg.recorded(chat_id=OWNER) if c.method != "sendChatAction"]
    limited = next(i for i, c in enumerate(calls) if c.status == 429)
    after = calls[limited + 1]
    assert after.status == 200 and after.time - calls[limited].time >= 0.95
    assert chats.tg.shown(OWNER) == ["short answer"]


def test_a_message_during_a_running_turn_is_queued_and_answered_next(chats):
    gate = threading.Event()

    def respond(rec):
        gate.wait(20)
        return Reply(f"answer to {rec.body['messages'][-1]['content'][-1]['text']}")

    chats.fake.responder = respond
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "first")
    chats.tg.wait_for(lambda: chats.fake.requests_for("anthropic"), what="the first call")
    chats.tg.message(OWNER, OWNER, "second")
    stats = chats.hub(server).stats["telegram"]
    chats.tg.wait_for(lambda: stats.messages == 2, what="the second message delivered")
    assert len(chats.fake.requests_for("anthropic")) == 1  # never two turns at once
    gate.set()
    chats.turns(server, 2)
    first, second = chats.fake.requests_for("anthropic")
    assert "answer to first" in repr(second.body["messages"])
    assert chats.tg.shown(OWNER) == ["answer to first", "answer to second"]


def test_stop_cancels_the_running_turn_and_the_chat_goes_on(chats):
    chats.fake.script(Reply("word " * 400, chunks=200, delay=0.05), Reply("fresh answer"))
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "tell me a long story")
    chats.tg.wait_for(lambda: chats.tg.sent(OWNER), what="the streamed message")
    chats.tg.message(OWNER, OWNER, "/stop")
    chats.turns(server, 1)
    assert chats.tg.shown(OWNER)[-1].endswith("(stopped)")
    assert len(chats.tg.shown(OWNER)[-1]) < 2000
    chats.tg.message(OWNER, OWNER, "/stop")
    chats.tg.wait_for(lambda: "Nothing is running." in chats.tg.shown(OWNER))
    chats.tg.message(OWNER, OWNER, "next")
    chats.turns(server, 2)
    assert chats.tg.shown(OWNER)[-1] == "fresh answer"


def test_usage_and_commands_answer_in_the_chat(chats):
    chats.fake.script(Reply("one"), Reply("two"))
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "hello")
    chats.turns(server, 1)
    chats.tg.message(OWNER, OWNER, "again")
    chats.turns(server, 2)
    chats.tg.message(OWNER, OWNER, "/usage")
    usage = chats.tg.wait_for(lambda: [t for t in chats.tg.shown(OWNER) if "hit rate" in t])
    lines = usage[0].splitlines()
    assert lines[0].startswith("Cache hit rate: ") and lines[0] != "Cache hit rate: 0%"
    assert "Calls: 2" in usage[0] and all(len(line) <= 40 for line in lines)
    commands = [c["command"] for c in chats.tg.recorded("setMyCommands")[0].params["commands"]]
    assert commands == ["new", "usage", "compress", "model", "personality", "reasoning", "plan", "cron",
                        "title", "retry", "undo", "goal", "stop", "help"]
    chats.tg.message(OWNER, OWNER, "/help")
    chats.tg.wait_for(lambda: any(t.startswith("Commands:") for t in chats.tg.shown(OWNER)))
    chats.tg.message(OWNER, OWNER, "/title Trip planning")
    chats.tg.wait_for(lambda: "title set: Trip planning" in chats.tg.shown(OWNER))
    chats.fake.script(Reply("two, again"))
    chats.tg.message(OWNER, OWNER, "/retry")
    chats.turns(server, 3)
    assert chats.tg.shown(OWNER)[-1] == "two, again"
    last = chats.fake.last.body["messages"]
    assert repr(last).count("again") == 1  # the old exchange was dropped, then re-run
    chats.tg.message(OWNER, OWNER, "/start")
    chats.tg.wait_for(lambda: sum(t.startswith("Commands:") for t in chats.tg.shown(OWNER)) == 2)
    before = len(chats.tg.shown(OWNER))
    chats.tg.message(OWNER, OWNER, "/compress")
    said = chats.tg.wait_for(lambda: chats.tg.shown(OWNER)[before:], what="/compress's reply")
    assert "ompress" in said[0] and "went wrong" not in said[0]
    chats.tg.message(OWNER, OWNER, "/new")
    chats.tg.wait_for(lambda: any(t.startswith("New session") for t in chats.tg.shown(OWNER)))


def test_a_document_is_saved_into_the_chats_workspace_and_named_to_the_model(chats):
    chats.fake.script(Reply("got it"))
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "please summarise", document=("../../report 1.csv", b"a,b\n1,2\n"))
    chats.turns(server, 1)
    from gateway.chat.base import chat_owner
    from gateway.workspaces import tenant_workspace

    saved = tenant_workspace(chats.home, chat_owner("telegram", str(OWNER))) / "uploads"
    assert [p.name for p in saved.iterdir()] == ["report 1.csv"]
    assert (saved / "report 1.csv").read_bytes() == b"a,b\n1,2\n"
    sent = repr(chats.fake.last.body["messages"])
    assert "please summarise" in sent and "saved as uploads/report 1.csv" in sent


def test_an_upload_never_follows_a_link_the_chats_tools_planted(chats, tmp_path):
    from gateway.chat.base import chat_owner
    from gateway.workspaces import tenant_workspace

    ssh = tmp_path / "fakehome" / ".ssh"
    ssh.mkdir(parents=True)
    workspace = tenant_workspace(chats.home, chat_owner("telegram", str(OWNER)))
    (workspace / "uploads").symlink_to(ssh)  # rm -rf uploads; ln -s $HOME/.ssh uploads
    chats.fake.script(Reply("got it"))
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "here", document=("authorized_keys", b"ssh-ed25519 EVIL\n"))
    chats.turns(server, 1)
    assert list(ssh.iterdir()) == []
    sent = repr(chats.fake.last.body["messages"])
    assert "authorized_keys, which was not saved: uploads/ in the working directory is a link" in sent


def test_a_reply_opening_a_fence_past_the_limit_arrives_once_in_its_pieces(chats):
    """Before: `split_message` gave [] for it, and Telegram dropped the paid answer."""
    answer = "```js " + "x" * 9000
    chats.fake.script(Reply(answer))
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "write a lot")
    chats.turns(server, 1)
    pieces = [visible_text(to_html(p), "HTML") for p in split_message(answer)]
    shown = chats.tg.shown(OWNER)
    assert len(pieces) == 3 and shown == pieces  # each piece once: count and characters
    assert sum(map(len, shown)) == sum(map(len, pieces))
