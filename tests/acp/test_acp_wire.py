"""`hermes acp` driven over real pipes by the SDK's client side, against the fake
provider server: initialize, a session, a streamed prompt, an approved write that hermes
performs itself (never by name through the editor: tests/acp/test_acp_race.py), a cancelled long turn, and a load in a new process that reads the cache."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from memory import open_store
from memory.session_lock import SessionLocked
from tests.fakes.script import Reply, ToolCall
from tests.helpers import anthropic_env, hermes_command

acp = pytest.importorskip("acp")
s = acp.schema

pytestmark = pytest.mark.wire
DEADLINE = 100.0  # a whole test; under a loaded CI machine a start takes seconds


class Editor:
    """An ACP client that records what it is sent and performs fs requests on disk."""

    def __init__(self, answer: str = "allow-once") -> None:
        self.updates: list = []
        self.asked: list = []
        self.writes: list[str] = []
        self.reads: list[str] = []
        self.answer = answer
        self.first_text = asyncio.Event()

    async def session_update(self, session_id, update, **_):
        self.updates.append(update)
        if getattr(update, "session_update", "") == "agent_message_chunk":
            self.first_text.set()

    async def request_permission(self, options, session_id, tool_call, **_):
        self.asked.append((tool_call, [o.option_id for o in options]))
        return s.RequestPermissionResponse(
            outcome=s.AllowedOutcome(outcome="selected", option_id=self.answer))

    async def write_text_file(self, content, path, session_id, **_):
        self.writes.append(path)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(content)  # an editor saves the buffer before it answers
        return s.WriteTextFileResponse()

    async def read_text_file(self, path, session_id, **_):
        self.reads.append(path)
        return s.ReadTextFileResponse(content=Path(path).read_text())

    def of(self, kind: str) -> list:
        return [u for u in self.updates if getattr(u, "session_update", "") == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of(kind))


FS = s.ClientCapabilities(fs=s.FileSystemCapabilities(read_text_file=True, write_text_file=True))


async def _open(editor: Editor, env: dict, cwd: Path, stderr):
    command = hermes_command(["acp"], env)
    return acp.spawn_agent_process(editor, command[0], *command[1:], env=env, cwd=str(cwd),
                                   transport_kwargs={"stderr": stderr})


def _run(coro):
    return asyncio.run(asyncio.wait_for(coro, DEADLINE))


async def _one_prompt(editor: Editor, place, text: str):
    """A new session in the project and one prompt; its response."""
    proj, env, err = place
    with err.open("w") as stderr:
        async with await _open(editor, env, proj, stderr) as (conn, _proc):
            await conn.initialize(protocol_version=1, client_capabilities=FS)
            new = await conn.new_session(cwd=str(proj), mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=[
                s.TextContentBlock(type="text", text=text)])


@pytest.fixture
def place(tmp_path, hermes_home, fake_provider):
    proj = tmp_path / "proj"
    proj.mkdir()
    return proj, anthropic_env(hermes_home, fake_provider), tmp_path / "stderr.txt"


def test_initialize_then_a_streamed_prompt_and_a_usage_command(place, fake_provider):
    proj, env, err = place
    fake_provider.script(Reply(text="Hello from hermes", chunks=3),
                         Reply(text="thought through", thinking="Weighing the options " * 8))
    editor = Editor()

    async def go():
        with err.open("w") as stderr:
            async with await _open(editor, env, proj, stderr) as (conn, _proc):
                started = time.monotonic()
                init = await conn.initialize(protocol_version=1, client_capabilities=FS)
                took = time.monotonic() - started
                new = await conn.new_session(cwd=str(proj), mcp_servers=[])
                done = await conn.prompt(session_id=new.session_id,
                                         prompt=[s.TextContentBlock(type="text", text="hi")])
                usage = await conn.prompt(session_id=new.session_id,
                                          prompt=[s.TextContentBlock(type="text", text="/usage")])
                calls = len(fake_provider.requests)
                await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="/reasoning 2048")])
                await conn.prompt(session_id=new.session_id,
                                  prompt=[s.TextContentBlock(type="text", text="think")])
                return init, took, new, done, usage, calls

    init, took, new, done, usage, calls = _run(go())
    assert init.protocol_version == 1 and init.agent_capabilities.load_session
    assert init.agent_capabilities.session_capabilities.list is not None
    print(f"initialize answered {took:.2f}s after the request")
    assert [m.id for m in new.modes.available_modes] == ["default", "plan"]
    chunks = [u.content.text for u in editor.of("agent_message_chunk")]
    assert len(chunks) >= 3 and "".join(chunks).startswith("Hello from hermes")
    assert done.stop_reason == "end_turn"
    assert done.usage.cached_write_tokens > 0 and done.usage.input_tokens > 0
    assert [u.title for u in editor.of("session_info_update")] == ["hi"]  # said once
    costs = [u.cost.amount for u in editor.of("usage_update")]
    assert len(costs) == 2 and 0 < costs[0] < costs[1]  # the session's, cumulative
    names = [c.name for c in editor.of("available_commands_update")[0].available_commands]
    assert "usage" in names and "model" in names
    assert usage.stop_reason == "end_turn" and "Cache hit rate" in editor.text()
    assert calls == 1  # /usage called no model
    written = fake_provider.requests[0].usage["cache_creation_input_tokens"]
    assert f"  cache write {written:,}\n" in editor.text()  # the one usage text, writes shown
    assert fake_provider.requests[1].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert editor.text("agent_thought_chunk").startswith("Weighing the options")
    assert editor.text().endswith("thought through")


def test_an_approved_write_is_done_by_hermes_not_the_editor(place, fake_provider, hermes_home):
    proj = place[0]
    (hermes_home / "config.yaml").write_text("permissions:\n  ask: ['write_file']\n")
    todos = [{"id": "1", "content": "write src/new.py", "status": "in_progress"},
             {"id": "2", "content": "say so", "status": "pending"}]
    fake_provider.script(
        Reply(tool_calls=[ToolCall("todo", {"todos": todos})]),
        Reply(tool_calls=[ToolCall("write_file", {"path": "src/new.py", "content": "x = 1\n"},
                                   id="toolu_w1")]),
        Reply(tool_calls=[ToolCall("write_file", {"path": "src/two.py", "content": "y\n"})]),
        Reply(tool_calls=[ToolCall("patch", {"path": "src/two.py", "old_string": "y",
                                             "new_string": "z"})]),
        Reply(text="written"))
    editor = Editor(answer="allow-always")
    done = _run(_one_prompt(editor, place, "make src/new.py"))
    assert done.stop_reason == "end_turn"
    (call, options), = editor.asked  # "allow always": the second write is not asked again
    assert call.tool_call_id == "toolu_w1"
    assert options == ["allow-once", "allow-always", "reject-once"]
    target = proj / "src" / "new.py"
    two = str(proj / "src" / "two.py")
    assert editor.writes == [] and editor.reads == []  # safefs, not a name the editor resolves
    assert target.read_text() == "x = 1\n" and Path(two).read_text() == "z\n"
    plan, = editor.of("plan")
    assert [(e.content, e.status) for e in plan.entries] == [
        ("write src/new.py", "in_progress"), ("say so", "pending")]
    todo, started, _second, patched = editor.of("tool_call")
    assert patched.content[0].old_text == "y" and patched.content[0].new_text == "z"
    assert todo.kind == "think"
    assert started.kind == "edit" and started.locations[0].path == str(target)
    assert started.content[0].new_text == "x = 1\n"  # the proposed change, before asking
    ended = editor.of("tool_call_update")[1]
    assert ended.status == "completed" and ended.content[0].type == "diff"
    assert ended.content[0].new_text == "x = 1\n" and ended.content[0].old_text is None
    assert editor.text().endswith("written")


def test_a_rejected_write_never_reaches_the_editor(place, fake_provider, hermes_home):
    proj, env, err = place
    (hermes_home / "config.yaml").write_text("permissions:\n  ask: ['write_file']\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("write_file", {"path": "no.txt", "content": "x"})]),
        Reply(text="ok, not written"))
    editor = Editor(answer="reject-once")

    def free(store, session_id: str) -> bool:
        lock = store.lock_session(session_id, purpose="test")
        try:
            lock.acquire(0)
        except SessionLocked:
            return False
        lock.release()
        return True

    async def go():
        with err.open("w") as stderr:
            async with await _open(editor, env, proj, stderr) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=FS)
                new = await conn.new_session(cwd=str(proj), mcp_servers=[])
                done = await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="write no.txt")])
                with pytest.raises(acp.RequestError):
                    await conn.prompt(session_id=new.session_id, prompt=[])
                await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="/new")])
                with open_store(hermes_home) as store:
                    newer = store.latest_session(source="acp")["id"]
                    held = (free(store, new.session_id), free(store, newer))
                return done, newer != new.session_id, held

    done, moved, held = _run(go())
    assert done.stop_reason == "end_turn" and moved
    assert held == (True, False)  # /new: the session it went on in is the one held
    assert len(editor.asked) == 1 and editor.writes == [] and not (proj / "no.txt").exists()
    assert editor.of("tool_call_update")[-1].status == "failed"


def test_cancel_ends_a_long_turn(place, fake_provider):
    proj, env, err = place
    fake_provider.script(Reply(text="word " * 200, chunks=100, delay=0.2))  # ~20 s of stream
    editor = Editor()

    async def go():
        with err.open("w") as stderr:
            async with await _open(editor, env, proj, stderr) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=FS)
                new = await conn.new_session(cwd=str(proj), mcp_servers=[])
                turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="talk for long")]))
                await asyncio.wait_for(editor.first_text.wait(), 30)
                asked = time.monotonic()
                await conn.cancel(session_id=new.session_id)
                done = await asyncio.wait_for(turn, 10)
                return done, time.monotonic() - asked

    done, took = _run(go())
    assert done.stop_reason == "cancelled" and took < 10
    assert len(editor.text()) < len("word " * 200)


def test_a_session_loads_in_a_new_process_and_its_next_request_reads_the_cache(
        place, fake_provider):
    proj, env, err = place
    fake_provider.script(Reply(text="noted: blue"), Reply(text="it was blue"), Reply(text="still"))
    first, second, third = Editor(), Editor(), Editor()

    async def go():
        with err.open("w") as stderr:
            async with await _open(first, env, proj, stderr) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=FS)
                new = await conn.new_session(cwd=str(proj), mcp_servers=[])
                await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="remember blue")])
            async with await _open(second, env, proj, stderr) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=FS)
                listed = await conn.list_sessions(cwd=str(proj))
                await conn.load_session(cwd=str(proj), session_id=new.session_id, mcp_servers=[])
                replayed = list(second.updates)
                done = await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="which colour?")])
            async with await _open(third, env, proj, stderr) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=FS)
                await conn.resume_session(cwd=str(proj), session_id=new.session_id, mcp_servers=[])
                resumed = [u.session_update for u in third.updates]
                await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="and now?")])
                return new.session_id, listed, replayed, done, resumed

    sid, listed, replayed, done, resumed = _run(go())
    assert sid in [row.session_id for row in listed.sessions]
    kinds = [u.session_update for u in replayed]
    assert kinds[:2] == ["user_message_chunk", "agent_message_chunk"]
    assert replayed[0].content.text == "remember blue" and replayed[1].content.text == "noted: blue"
    one, two, three = fake_provider.requests
    assert two.cache_read >= one.cache_write > 0  # the stored prompt's bytes were read
    assert done.usage.cached_read_tokens == two.cache_read
    assert second.text().endswith("it was blue")
    assert "user_message_chunk" not in resumed  # resume: no replay
    assert three.cache_read >= two.cache_read + two.cache_write - 1 > 0


def test_the_editors_mcp_server_joins_the_sessions_tools(place, fake_provider):
    proj, env, err = place
    server = Path(__file__).resolve().parents[1] / "mcp" / "server.py"
    fake_provider.script(Reply(tool_calls=[ToolCall("mcp__ed__echo", {"text": "from the editor"})]),
                         Reply(text="echoed"))
    editor = Editor()

    async def go():
        with err.open("w") as stderr:
            async with await _open(editor, env, proj, stderr) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=FS)
                new = await conn.new_session(cwd=str(proj), mcp_servers=[s.McpServerStdio(
                    name="ed", command=sys.executable, args=[str(server), "stdio"], env=[])])
                return await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="echo something")])

    assert _run(go()).stop_reason == "end_turn"
    first, second = fake_provider.requests
    names = [tool["name"] for tool in first.body["tools"]]
    assert "mcp__ed__echo" in names and "read_file" in names
    assert [t["name"] for t in second.body["tools"]] == names  # frozen: same bytes
    ended = editor.of("tool_call_update")[0]
    assert ended.status == "completed" and "from the editor" in ended.content[0].content.text


def test_plan_mode_from_the_mode_selector_refuses_a_write(place, fake_provider):
    proj, env, err = place
    fake_provider.script(Reply(tool_calls=[ToolCall("write_file", {"path": "p.txt", "content": "x"})]),
                         Reply(text="planned instead"))
    editor = Editor()

    async def go():
        with err.open("w") as stderr:
            async with await _open(editor, env, proj, stderr) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=FS)
                new = await conn.new_session(cwd=str(proj), mcp_servers=[])
                await conn.set_session_mode(session_id=new.session_id, mode_id="plan")
                done = await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="write p.txt")])
                await conn.close_session(session_id=new.session_id)
                with pytest.raises(acp.RequestError):  # closed: unknown here until loaded
                    await conn.set_session_mode(session_id=new.session_id, mode_id="default")
                loaded = await conn.load_session(cwd=str(proj), session_id=new.session_id,
                                                 mcp_servers=[])  # its lock was released
                return done, loaded

    done, loaded = _run(go())
    assert done.stop_reason == "end_turn"
    assert loaded.modes.current_mode_id == "plan"  # the mode is the stored session's
    assert editor.writes == [] and not (proj / "p.txt").exists() and editor.asked == []
    ended = editor.of("tool_call_update")[0]
    assert ended.status == "failed" and "plan mode" in ended.content[0].content.text
    assert "Plan mode is ON" in fake_provider.requests[0].body["messages"][-1]["content"][-1]["text"]


def test_an_image_block_from_the_editor_goes_with_the_message(place, fake_provider):
    import base64

    from tests.helpers import screenshot

    proj, env, err = place
    fake_provider.script(Reply(text="a red square"))
    editor = Editor()
    png = base64.b64encode(screenshot(300, 200)).decode()

    async def go():
        with err.open("w") as stderr:
            async with await _open(editor, env, proj, stderr) as (conn, _proc):
                init = await conn.initialize(protocol_version=1, client_capabilities=FS)
                new = await conn.new_session(cwd=str(proj), mcp_servers=[])
                done = await conn.prompt(session_id=new.session_id, prompt=[
                    s.TextContentBlock(type="text", text="what is this?"),
                    s.ImageContentBlock(type="image", data=png, mime_type="image/png")])
                return init, done

    init, done = _run(go())
    assert init.agent_capabilities.prompt_capabilities.image  # advertised
    assert done.stop_reason == "end_turn" and editor.text() == "a red square"
    content = fake_provider.requests[-1].body["messages"][-1]["content"]
    kinds = [block["type"] for block in content]
    assert "image" in kinds and content[kinds.index("image")]["source"]["media_type"] == "image/png"


def test_a_command_hiding_behind_a_line_erase_is_asked_with_its_real_bytes(place,
                                                                           fake_provider):
    """The title writes the command's control characters as visible
    escapes; raw_input keeps the exact command as data."""
    command = "rm -rf *\r\x1b[2Kls ~/Downloads"
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": command})]),
                         Reply(text="left alone"))
    editor = Editor(answer="reject-once")
    assert _run(_one_prompt(editor, place, "tidy up")).stop_reason == "end_turn"
    (call, _options), = editor.asked
    assert call.title.startswith("rm -rf *\\r\\x1b[2Kls ~/Downloads (")
    assert "\x1b" not in call.title and "\r" not in call.title
    assert call.raw_input["command"] == command
