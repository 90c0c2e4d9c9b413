"""Approvals from an inline keyboard: a dangerous command in a chat runs only when the
owner presses "Approve once" (wire tier: fake Bot API, fake provider, the real terminal
tool in the kernel sandbox)."""

from __future__ import annotations

import pytest

from gateway.chat.approvals import NOT_YOURS
from gateway.chat.base import chat_owner
from gateway.workspaces import tenant_workspace
from tests.fakes import Reply, ToolCall
from tests.helpers import GROUP, OWNER

pytestmark = pytest.mark.wire


def _scratch(chats, chat: int):
    workspace = tenant_workspace(chats.home, chat_owner("telegram", str(chat)))
    (workspace / "scratch.txt").write_text("x", encoding="utf-8")
    return workspace / "scratch.txt"


def _keyboard(chats, chat: int) -> dict:
    return chats.tg.wait_for(lambda: chats.tg.keyboards(chat), what="the question")[0]


def _tool_result(chats) -> str:
    return repr(chats.fake.last.body["messages"][-1])


def test_a_dangerous_command_runs_once_the_owner_approves(chats):
    chats.config["toolsets"] = ["terminal"]
    chats.fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": "rm -rf *"})]),
                      Reply("cleaned"))
    server = chats.start(allowed_chats=[GROUP], groups="all")
    scratch = _scratch(chats, GROUP)
    chats.tg.message(GROUP, OWNER, "clean the workspace", chat_type="supergroup")
    question = _keyboard(chats, GROUP)
    assert "rm -rf *" in question["text"]
    chats.tg.press(GROUP, 7, question["message_id"], question["reply_markup"][
        "inline_keyboard"][0][0]["callback_data"])  # a member, not an owner: ignored
    answers = chats.tg.wait_for(lambda: chats.tg.recorded("answerCallbackQuery"))
    assert answers[0].params["text"] == "Only the bot's owner can answer this."
    assert scratch.exists()
    chats.tg.press(GROUP, OWNER, question["message_id"], question["reply_markup"][
        "inline_keyboard"][0][0]["callback_data"])
    chats.turns(server, 1)
    assert not scratch.exists()
    assert "exit code 0" in _tool_result(chats)
    assert chats.tg.shown(GROUP)[0].startswith("Approved once: rm -rf *")
    assert not chats.tg.keyboards(GROUP)


def test_a_refusal_leaves_everything_as_it_was(chats):
    chats.config["toolsets"] = ["terminal"]
    chats.fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": "rm -rf *"})]),
                      Reply("ok, I will not"))
    server = chats.start()
    scratch = _scratch(chats, OWNER)
    chats.tg.message(OWNER, OWNER, "clean the workspace")
    question = _keyboard(chats, OWNER)
    chats.tg.press(OWNER, OWNER, question["message_id"], question["reply_markup"][
        "inline_keyboard"][0][1]["callback_data"])
    chats.turns(server, 1)
    assert scratch.exists()
    assert "declined" in _tool_result(chats)
    assert chats.tg.shown(OWNER)[0].startswith("Refused: rm -rf *")


def test_leaving_the_sandbox_is_refused_without_asking(chats):
    chats.config["toolsets"] = ["terminal"]
    chats.fake.script(Reply(tool_calls=[ToolCall(
        "terminal", {"command": "ls /", "outside_sandbox": True})]), Reply("understood"))
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "look around")
    chats.turns(server, 1)
    assert not chats.tg.keyboards(OWNER) and len(chats.tg.sent(OWNER)) == 1
    assert "declined" in _tool_result(chats) or "refused" in _tool_result(chats)


def test_in_a_group_only_the_asker_answers_not_another_allowed_user(chats):
    """Before: Slack and Discord refused it; Telegram let another owner approve."""
    chats.config["toolsets"] = ["terminal"]
    chats.fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": "rm -rf *"})]),
                      Reply("cleaned"))
    server = chats.start(allowed_users=[OWNER, 8], allowed_chats=[GROUP], groups="all")
    scratch = _scratch(chats, GROUP)
    chats.tg.message(GROUP, OWNER, "clean the workspace", chat_type="supergroup")
    question = _keyboard(chats, GROUP)
    approve = question["reply_markup"]["inline_keyboard"][0][0]["callback_data"]
    chats.tg.press(GROUP, 8, question["message_id"], approve)  # allowed, not the asker
    answers = chats.tg.wait_for(lambda: chats.tg.recorded("answerCallbackQuery"))
    assert answers[0].params["text"] == NOT_YOURS
    assert scratch.exists() and chats.tg.keyboards(GROUP)
    chats.tg.press(GROUP, OWNER, question["message_id"], approve)
    chats.turns(server, 1)
    assert not scratch.exists()


def test_the_question_shows_control_characters_visibly_and_long_commands_whole(chats):
    """Before: `\\r` + ESC[2K redrew the line over the real command."""
    chats.config["toolsets"] = ["terminal"]
    hidden = "rm -rf *\r\x1b[2Kls ~/Downloads"
    long = "rm -rf *\n" + "\n".join(f"echo line {i} " + "y" * 90 for i in range(60))
    chats.fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": hidden})]),
                      Reply(tool_calls=[ToolCall("terminal", {"command": long})]),
                      Reply("nothing ran"))
    server = chats.start()
    chats.tg.message(OWNER, OWNER, "clean up")
    question = _keyboard(chats, OWNER)
    assert "rm -rf *\\r\\x1b[2Kls ~/Downloads" in question["text"]
    assert "\x1b" not in question["text"] and "\r" not in question["text"]
    deny = question["reply_markup"]["inline_keyboard"][0][1]["callback_data"]
    chats.tg.press(OWNER, OWNER, question["message_id"], deny)
    second = chats.tg.wait_for(lambda: [k for k in chats.tg.keyboards(OWNER)
                                        if k["message_id"] != question["message_id"]])[0]
    shown = "".join(m["text"] for m in chats.tg.sent(OWNER)
                    if m["message_id"] != question["message_id"])
    assert len(long) > 4096 and long in shown  # every line, across messages
    chats.tg.press(OWNER, OWNER, second["message_id"],
                   second["reply_markup"]["inline_keyboard"][0][1]["callback_data"])
    chats.turns(server, 1)
