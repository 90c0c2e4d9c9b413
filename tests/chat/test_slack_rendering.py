"""What a Slack user sees (wire tier: FakeSlack + fake provider): a long answer streamed
and split within Slack's limits with nothing lost, appends no more often than
edit_interval, a 429 waited out, approvals with buttons only the asker may press,
uploads and images."""

from __future__ import annotations

import base64
import re

import pytest

from gateway.chat.approvals import NOT_YOURS
from gateway.chat.base import chat_owner
from gateway.chat.slack.reply import ROOM
from gateway.chat.text import split_message
from gateway.workspaces import tenant_workspace
from tests.chat.slack_harness import CHANNEL, OTHER, OWNER
from tests.fakes import Reply, ToolCall
from tests.helpers import screenshot

pytestmark = pytest.mark.wire
DM = f"D{OWNER}"


def _long_answer() -> str:
    prose = "\n\n".join(f"Paragraph {i}: " + "a **bold** word " * 40 for i in range(40))
    code = "\n".join(f"print('line {i}')" for i in range(1000))
    return f"{prose}\n\n```python\n{code}\n```\n\nThe end."


def test_a_44000_character_answer_streams_and_arrives_whole_in_parts_within_limits(slacks):
    answer = _long_answer()
    assert len(answer) >= 44_000
    slacks.fake.script(Reply(answer, chunks=40, delay=0.03))
    server = slacks.start()
    root = slacks.slack.dm(OWNER, "write a lot")
    slacks.turns(server, 1)
    parts = slacks.slack.texts(DM, thread_ts=root)
    assert len(parts) >= 4 and all(len(part) <= 12_000 for part in parts)
    joined = "\n".join(parts)
    assert all(joined.count(f"Paragraph {i}: ") == 1 for i in range(40))
    assert all(joined.count(f"print('line {i}')\n") == 1 for i in range(999))
    assert joined.rstrip().endswith("The end.")
    assert all(sum(line.startswith("```") for line in p.split("\n")) % 2 == 0 for p in parts)
    assert slacks.slack.recorded("chat.startStream")  # it streamed while the turn ran
    assert all(c.status == 200 for c in slacks.slack.recorded(channel=DM))


def test_a_streamed_answer_is_appended_no_more_often_than_edit_interval(slacks):
    answer = " ".join(f"w{i}" for i in range(1500))
    slacks.fake.script(Reply(answer, chunks=30, delay=0.1))
    server = slacks.start()
    root = slacks.slack.dm(OWNER, "stream something")
    slacks.turns(server, 1)
    (message,) = slacks.slack.sent(DM, thread_ts=root)
    assert message.shown == answer and not message.streaming
    assert len(message.edits) >= 2  # appended while the turn ran
    gaps = [b - a for a, b in zip(message.edits, message.edits[1:], strict=False)]
    assert all(gap >= 0.45 for gap in gaps), gaps  # edit_interval 0.5, measured at the fake


def test_a_429_is_waited_out_and_the_rest_still_arrives(slacks):
    answer = "\n\n".join(f"Part {i}: " + "x" * 9_000 for i in range(3))
    slacks.fake.script(Reply(answer))
    slacks.slack.limits.post_limit, slacks.slack.limits.post_window = 1, 1.5
    server = slacks.start()
    slacks.slack.dm(OWNER, "three parts please")
    slacks.turns(server, 1)
    calls = [c for c in slacks.slack.recorded("chat.postMessage", DM)]
    limited = next(i for i, c in enumerate(calls) if c.status == 429)
    after = calls[limited + 1]
    assert after.status == 200 and after.time - calls[limited].time >= 1.0
    joined = "\n".join(slacks.slack.texts(DM))
    assert all(f"Part {i}: " in joined for i in range(3))
    assert slacks.adapter(server).rate_limited >= 1


def test_only_the_asker_can_approve_a_dangerous_command(slacks):
    slacks.config["toolsets"] = ["terminal"]
    slacks.fake.script(Reply(tool_calls=[ToolCall("terminal", {"command": "rm -rf *"})]),
                       Reply("cleaned"))
    server = slacks.start()
    scratch = tenant_workspace(slacks.home, chat_owner("slack", CHANNEL)) / "scratch.txt"
    scratch.write_text("x", encoding="utf-8")
    root = slacks.slack.mention(CHANNEL, OWNER, "clean the workspace")
    question = slacks.slack.wait_for(
        lambda: [m for m in slacks.slack.sent(CHANNEL, root) if m.blocks], what="the question")[0]
    assert "rm -rf *" in question.text
    slacks.slack.press(OTHER, CHANNEL, question.ts, "hermes_approve")  # allowed, not the asker
    told = slacks.slack.wait_for(lambda: slacks.slack.recorded("chat.postEphemeral"))
    assert told[0].params["text"] == NOT_YOURS
    assert told[0].params["user"] == OTHER and scratch.exists()
    slacks.slack.press(OWNER, CHANNEL, question.ts, "hermes_approve")
    slacks.turns(server, 1)
    assert not scratch.exists()
    assert question.text.startswith("Approved once: rm -rf *")
    assert not any(b.get("type") == "actions" for b in question.blocks)  # the buttons went
    assert slacks.slack.texts(CHANNEL, root)[-1] == "cleaned"


def test_files_are_saved_into_the_workspace_and_images_reach_the_model(slacks):
    image = screenshot(320, 200, fmt="PNG")
    slacks.fake.script(Reply("got them"))
    server = slacks.start()
    slacks.slack.dm(OWNER, "see these", files=[("../../report 1.csv", "text/csv", b"a,b\n1,2\n"),
                                                ("shot.png", "image/png", image)])
    slacks.turns(server, 1)
    saved = tenant_workspace(slacks.home, chat_owner("slack", DM)) / "uploads"
    assert [p.name for p in saved.iterdir()] == ["report 1.csv"]
    assert (saved / "report 1.csv").read_bytes() == b"a,b\n1,2\n"
    user = slacks.fake.last.body["messages"][0]["content"]
    assert [p["type"] for p in user] == ["image", "text"]
    assert base64.b64decode(user[0]["source"]["data"]) == image
    assert "saved as uploads/report 1.csv" in user[1]["text"]
    downloads = slacks.slack.recorded("files-pri")
    assert len(downloads) == 2 and all(c.status == 200 for c in downloads)  # with the bot token


def test_an_answer_opening_a_fence_with_a_long_line_arrives_once_not_130_times(slacks):
    """Before: 44,000 characters arrived as 130 messages, 1.55 million characters."""
    answer = "```js " + "y" * 11_900 + "\n" + "\n".join("z" * 80 for _ in range(400))
    slacks.fake.script(Reply(answer))
    server = slacks.start()
    root = slacks.slack.dm(OWNER, "write a lot")
    slacks.turns(server, 1)
    pieces = split_message(answer, ROOM)
    parts = slacks.slack.texts(DM, thread_ts=root)
    # Where a streamed message is cut depends on how much text had come when it was
    # stopped (the machine's speed), so the pieces may be cut elsewhere than
    # split_message's: what holds is every character once, in order, within the limit.
    assert len(pieces) == 4 and len(parts) <= len(pieces) + 1, [len(p) for p in parts]
    assert all(len(part) <= ROOM for part in parts)
    assert _letters("".join(parts)) == _letters(answer)
    assert sum(map(len, parts)) < len(answer) + 100


def _letters(text: str) -> str:
    """The text without fence lines and line breaks (a piece cut inside a code block
    closes it and the next reopens it)."""
    return re.sub(r"```(?:js)?|\n", "", text)


def test_a_streamed_answer_opening_a_fence_with_a_long_line_is_not_repeated(slacks):
    """The runaway on the streaming path: each new message reopened the fence
    with its whole first line (11,900 characters) and carried a few characters more."""
    answer = "```js " + "y" * 11_900 + "\n" + "\n".join("z" * 80 for _ in range(400))
    slacks.fake.script(Reply(answer, chunks=40, delay=0.03))
    server = slacks.start()
    root = slacks.slack.dm(OWNER, "write a lot")
    slacks.turns(server, 1)
    parts = slacks.slack.texts(DM, thread_ts=root)
    assert slacks.slack.recorded("chat.startStream")  # it streamed
    assert len(parts) <= 6 and all(len(part) <= 12_000 for part in parts)
    assert sum(map(len, parts)) < len(answer) + 200
    assert "".join(parts).count("y" * 11_900) == 1
