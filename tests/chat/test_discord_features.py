"""The shared chat features on Discord: commands, approvals with buttons only the asker
may press, attachments saved into the workspace, images to the model (wire tier:
FakeDiscord + fake provider, the real terminal tool in the kernel sandbox)."""

from __future__ import annotations

import base64

import pytest

from gateway.chat.base import chat_owner
from gateway.workspaces import tenant_workspace
from tests.chat.discord_harness import OWNER
from tests.fakes import Reply, ToolCall
from tests.fakes.discord_api import CHANNEL_ID
from tests.helpers import screenshot

pytestmark = pytest.mark.wire
DM = OWNER + 1
MEMBER = 500000000000000222  # allowed to talk, but not the one who asked


def _question(chats, channel: int) -> dict:
    # the first turn of a fresh gateway builds its agent first: seconds on a loaded machine
    return chats.dc.wait_for(lambda: [m for m in chats.dc.sent(channel) if m["components"]],
                             timeout=60, what="the question")[0]


def _buttons(question: dict) -> list[str]:
    return [b["custom_id"] for row in question["components"] for b in row["components"]]


def test_an_approval_is_two_buttons_only_the_asker_can_press(discord_chats):
    chats = discord_chats
    chats.config["toolsets"] = ["terminal"]
    chats.fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": "rm -rf *"})]),
                      Reply("cleaned"))
    server = chats.start(allowed_users=[OWNER, MEMBER])
    mention = chats.dc.say(CHANNEL_ID, OWNER, "clean the workspace", mention=True)
    chats.dc.wait_for(chats.dc.threads, what="the thread")
    workspace = tenant_workspace(chats.home, chat_owner("discord", str(mention)))
    (workspace / "scratch.txt").write_text("x", encoding="utf-8")
    question = _question(chats, mention)
    assert "rm -rf *" in question["content"]
    approve, deny = _buttons(question)
    assert approve.startswith("approve:") and deny.startswith("deny:")
    chats.dc.press(int(question["id"]), MEMBER, approve)  # allowed, but not the asker
    answered = chats.dc.wait_for(lambda: chats.dc.recorded("POST") and [
        c for c in chats.dc.calls if c.path.endswith("/callback")], what="the first answer")
    assert answered[0].body["data"] == {"content": "Only the person who asked can answer this.",
                                        "flags": 64}  # ephemeral: only the presser sees it
    assert (workspace / "scratch.txt").exists()
    chats.dc.press(int(question["id"]), OWNER, approve)
    chats.turns(server, 1)
    assert not (workspace / "scratch.txt").exists()
    callbacks = [c for c in chats.dc.calls if c.path.endswith("/callback")]
    assert [c.status for c in callbacks] == [204, 204]
    assert callbacks[1].body["data"]["content"] == "Approved once."
    settled = chats.dc.messages[int(question["id"])]
    assert settled["content"].startswith("Approved once: rm -rf *") and not settled["components"]


def test_commands_answer_in_the_chat(discord_chats):
    chats = discord_chats
    (chats.home / "commands").mkdir()
    (chats.home / "commands" / "standup.md").write_text(
        "---\ndescription: Draft my standup\n---\nDraft a standup about $ARGUMENTS.\n")
    chats.fake.script(Reply("one"), Reply("two"))
    server = chats.start()
    chats.dc.dm(OWNER, "hello")
    chats.turns(server, 1)
    chats.dc.dm(OWNER, "again")
    chats.turns(server, 2)
    chats.dc.dm(OWNER, "/usage")
    usage = chats.dc.wait_for(lambda: [t for t in chats.dc.texts(DM) if "hit rate" in t])
    assert usage[0].startswith("Cache hit rate: ") and "Calls: 2" in usage[0]
    (menu,) = [c for c in chats.dc.calls if c.method == "PUT"]  # the slash commands
    from gateway.chat.hub import CHAT_COMMANDS  # the one list every platform offers

    assert [c["name"] for c in menu.body] == list(CHAT_COMMANDS)  # ends with stop, help
    assert {"new", "usage", "compress", "model", "plan", "retry", "undo"} <= set(CHAT_COMMANDS)
    chats.dc.command(DM, OWNER, "usage")  # the same as typing it
    chats.dc.wait_for(lambda: len([t for t in chats.dc.texts(DM) if "hit rate" in t]) == 2)
    (ack,) = [c for c in chats.dc.calls if c.path.endswith("/callback")]
    assert ack.status == 204 and ack.body["data"] == {"content": "/usage", "flags": 64}
    chats.fake.script(Reply("two, again"))
    chats.dc.dm(OWNER, "/retry")
    chats.turns(server, 3)
    assert chats.dc.texts(DM)[-1] == "two, again"
    chats.dc.dm(OWNER, "/new")
    chats.dc.wait_for(lambda: any(t.startswith("New session") for t in chats.dc.texts(DM)))
    chats.dc.dm(OWNER, "/plan on")
    chats.dc.wait_for(lambda: any("plan mode ON" in t for t in chats.dc.texts(DM)))
    chats.fake.script(Reply("standup drafted"))
    chats.dc.dm(OWNER, "/standup the release")
    chats.turns(server, 4)
    sent = chats.fake.last.body["messages"][-1]["content"][0]["text"]
    assert sent.startswith("Draft a standup about the release.")


def test_an_attachment_is_saved_into_the_workspace_and_an_image_reaches_the_model(discord_chats):
    chats = discord_chats
    image = screenshot(320, 200, fmt="PNG")
    chats.fake.script(Reply("got the file"), Reply("a terminal"))
    server = chats.start()
    chats.dc.dm(OWNER, "please summarise", attachment=("../../report 1.csv", "text/csv",
                                                        b"a,b\n1,2\n"))
    chats.turns(server, 1)
    saved = tenant_workspace(chats.home, chat_owner("discord", str(DM))) / "uploads"
    assert [p.name for p in saved.iterdir()] == ["report 1.csv"]
    assert (saved / "report 1.csv").read_bytes() == b"a,b\n1,2\n"
    assert "saved as uploads/report 1.csv" in repr(chats.fake.last.body["messages"])
    chats.dc.dm(OWNER, "what is this?", attachment=("shot.png", "image/png", image))
    chats.turns(server, 2)
    user = chats.fake.last.body["messages"][-1]["content"]
    assert [p["type"] for p in user] == ["image", "text"]
    assert base64.b64decode(user[0]["source"]["data"]) == image
