"""The editor's permission request shows what runs (issue 52.4; wire tier: `hermes acp`
against the fake provider): the title writes the command's control characters as
visible escapes; raw_input keeps the exact command as data."""

from __future__ import annotations

import pytest
from acp import schema as s

from tests.acp.test_acp_wire import FS, Editor, _open, _run
from tests.acp.test_acp_wire import place as place  # the fixture: proj, env, stderr path
from tests.fakes import Reply, ToolCall

pytestmark = pytest.mark.wire


def test_a_command_hiding_behind_a_line_erase_is_asked_with_its_real_bytes(
        place, fake_provider):  # noqa: F811 - the fixture imported above
    proj, env, err = place
    command = "rm -rf *\r\x1b[2Kls ~/Downloads"
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": command})]),
                         Reply(text="left alone"))
    editor = Editor(answer="reject-once")

    async def go():
        with err.open("w") as stderr:
            async with await _open(editor, env, proj, stderr) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=FS)
                new = await conn.new_session(cwd=str(proj), mcp_servers=[])
                return await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="tidy up")])

    assert _run(go()).stop_reason == "end_turn"
    (call, _options), = editor.asked
    assert call.title.startswith("rm -rf *\\r\\x1b[2Kls ~/Downloads (")
    assert "\x1b" not in call.title and "\r" not in call.title
    assert call.raw_input["command"] == command
