"""Approvals from an inline keyboard: a dangerous command in a chat runs only when the
owner presses "Approve once" (wire tier: fake Bot API, fake provider, the real terminal
tool in the kernel sandbox)."""

from __future__ import annotations

import pytest

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
    chats.tg.message(GROUP, 7, "clean the workspace", chat_type="supergroup")
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
