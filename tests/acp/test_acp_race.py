"""ACP file I/O never follows a swapped name (wire tier: `hermes acp` over real
pipes, the SDK's client side, the fake provider).

The editor offers fs/read_text_file and fs/write_text_file and, as real editors do,
resolves the path it is given. While the turn runs, a process swaps the workspace's
w.txt and r.txt between a regular file and a link to the fake home's ~/.bashrc and
~/.ssh/id_rsa, in a loop (a background process, as in the attack). Out of N writes and N reads: ~/.bashrc is never written, the
key never reaches the model, and the editor is never handed a name to resolve (hermes
reads and writes through safefs itself)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.script import Reply, ToolCall
from tests.helpers import anthropic_env, hermes_command

acp = pytest.importorskip("acp")
s = acp.schema

pytestmark = pytest.mark.wire
TRIES = 12
KEY = "FAKE-SSH-KEY-RACE-7d7d"


class NameFollowingEditor:
    """Performs fs requests by name, following links, as an editor does."""

    def __init__(self) -> None:
        self.writes: list[str] = []
        self.reads: list[str] = []
        self.escaped = 0  # requests whose name was a link when the editor resolved it

    async def session_update(self, session_id, update, **_):
        return None

    async def request_permission(self, options, session_id, tool_call, **_):
        return s.RequestPermissionResponse(outcome=s.AllowedOutcome(outcome="selected", option_id="allow-once"))

    async def write_text_file(self, content, path, session_id, **_):
        self.writes.append(path)
        self.escaped += Path(path).is_symlink()
        Path(path).write_text(content)
        return s.WriteTextFileResponse()

    async def read_text_file(self, path, session_id, **_):
        self.reads.append(path)
        self.escaped += Path(path).is_symlink()
        return s.ReadTextFileResponse(content=Path(path).read_text())


FLIPPER = """import os, signal, sys
proj, home = sys.argv[1], sys.argv[2]
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
pairs = (("w.txt", os.path.join(home, ".bashrc")), ("r.txt", os.path.join(home, ".ssh", "id_rsa")))
rounds = 0
while not stop:
    for name, target in pairs:
        os.symlink(target, os.path.join(proj, ".link"))
        os.replace(os.path.join(proj, ".link"), os.path.join(proj, name))
        with open(os.path.join(proj, ".file"), "w") as f:
            f.write("harmless\\n")
        os.replace(os.path.join(proj, ".file"), os.path.join(proj, name))
    rounds += 1
print(rounds)
"""


def test_a_name_swapped_for_a_link_is_never_followed(tmp_path: Path, hermes_home: Path, fake_provider) -> None:
    home = tmp_path / "home"
    proj = home / "proj"
    (home / ".ssh").mkdir(parents=True)
    proj.mkdir()
    (home / ".bashrc").write_text("alias ll='ls -l'\n")
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    for name in ("w.txt", "r.txt"):
        (proj / name).write_text("harmless\n")
    env = {**anthropic_env(hermes_home, fake_provider), "HOME": str(home)}
    writes = [ToolCall("write_file", {"path": "w.txt", "content": f"echo PLANTED-{i}\n"}) for i in range(TRIES)]
    reads = [ToolCall("read_file", {"path": "r.txt"}) for _ in range(TRIES)]
    fake_provider.script(Reply(tool_calls=writes), Reply(tool_calls=reads), Reply(text="done"))
    editor = NameFollowingEditor()
    rounds: list[int] = []
    caps = s.ClientCapabilities(fs=s.FileSystemCapabilities(read_text_file=True, write_text_file=True))

    async def go():
        command = hermes_command(["acp"], env)
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with acp.spawn_agent_process(editor, command[0], *command[1:], env=env, cwd=str(proj),
                                               transport_kwargs={"stderr": stderr}) as (conn, _proc):
                await conn.initialize(protocol_version=1, client_capabilities=caps)
                new = await conn.new_session(cwd=str(proj), mcp_servers=[])
                flipper = subprocess.Popen([sys.executable, "-c", FLIPPER, str(proj), str(home)],
                                           stdout=subprocess.PIPE, text=True)
                try:
                    return await conn.prompt(session_id=new.session_id,
                                             prompt=[s.TextContentBlock(type="text", text="go")])
                finally:
                    flipper.terminate()
                    rounds.append(int(flipper.communicate(timeout=10)[0] or 0))

    done = asyncio.run(asyncio.wait_for(go(), 100))
    print(f"\n{2 * TRIES} tries, {rounds[0] if rounds else 0} swaps, {editor.escaped} escapes")
    assert done.stop_reason == "end_turn" and rounds and rounds[0] > TRIES  # the race ran throughout
    assert (home / ".bashrc").read_text() == "alias ll='ls -l'\n"  # 0 escapes of N writes
    seen = json.dumps([r.body["messages"] for r in fake_provider.requests])
    assert KEY not in seen  # 0 escapes of N reads
    assert seen.count("harmless") + seen.count("refused") >= TRIES  # the reads did run
    assert editor.writes == [] and editor.reads == []  # no name handed over to resolve later
