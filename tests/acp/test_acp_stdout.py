"""Nothing but protocol messages on `hermes acp`'s stdout, whatever comes in: malformed
JSON, a non-object, an unknown method, a bad session, a provider error, a missing key.
Raw JSON-RPC over real pipes (no SDK on this side: it would drop what is not JSON)."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time

import pytest

from tests.fakes.script import Error
from tests.helpers import anthropic_env, child_env, hermes_command

pytestmark = pytest.mark.wire


class Raw:
    """`hermes acp` with every stdout line collected (parsed or not)."""

    def __init__(self, env: dict, cwd) -> None:
        self.proc = subprocess.Popen(hermes_command(["acp"], env), env=env,
                                     cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.seen.append(line)
            self.lines.put(line)

    def send(self, raw: str) -> None:
        self.proc.stdin.write(raw.encode() + b"\n")
        self.proc.stdin.flush()

    def call(self, ident: int, method: str, params: dict) -> dict:
        self.send(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}))
        return self.answer(ident)

    def answer(self, ident, timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            message = json.loads(line)
            if message.get("id") == ident and "method" not in message:
                return message

    def close(self) -> str:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        return self.proc.stderr.read().decode()


def _only_protocol(raw: Raw, stderr: str) -> None:
    for line in raw.seen:
        message = json.loads(line)  # every line is JSON ...
        assert message.get("jsonrpc") == "2.0", line  # ... and JSON-RPC
    assert "Traceback" not in stderr


def test_bad_input_and_a_provider_error_leave_only_protocol_on_stdout(
        tmp_path, hermes_home, fake_provider):
    fake_provider.script(Error(401, "invalid x-api-key"))
    raw = Raw(anthropic_env(hermes_home, fake_provider), tmp_path)
    try:
        raw.send("this is not json")
        assert raw.answer(None)["error"]["code"] == -32700
        raw.send("[1, 2]")
        assert raw.answer(None)["error"]["code"] == -32600
        assert raw.call(1, "initialize", {"protocolVersion": 1})["result"]["protocolVersion"] == 1
        assert raw.call(2, "no/such", {})["error"]["code"] == -32601
        bad_cwd = raw.call(3, "session/new", {"cwd": "relative", "mcpServers": []})
        assert "absolute" in bad_cwd["error"]["message"]
        unknown = raw.call(4, "session/prompt", {"sessionId": "nope", "prompt": []})
        assert unknown["error"]["code"] == -32602
        sid = raw.call(5, "session/new", {"cwd": str(tmp_path), "mcpServers": []})["result"]["sessionId"]
        failed = raw.call(6, "session/prompt", {"sessionId": sid, "prompt": [
            {"type": "text", "text": "hi"}]})
        assert "x-api-key" in failed["error"]["message"].lower()
    finally:
        stderr = raw.close()
    _only_protocol(raw, stderr)
    assert stderr.count("\n") <= 4  # one line per problem


def test_a_missing_key_is_an_error_of_session_new_not_a_crash(tmp_path, hermes_home):
    raw = Raw(child_env(hermes_home), tmp_path)
    try:
        assert "result" in raw.call(1, "initialize", {"protocolVersion": 1})
        missing = raw.call(2, "session/new", {"cwd": str(tmp_path), "mcpServers": []})
        assert "no provider configured" in missing["error"]["message"]
        assert missing["error"]["data"]["hint"]
    finally:
        stderr = raw.close()
    _only_protocol(raw, stderr)


def test_an_editor_that_goes_away_mid_question_does_not_strand_the_process(
        tmp_path, hermes_home, fake_provider):
    from tests.fakes.script import Reply, ToolCall

    (hermes_home / "config.yaml").write_text("permissions:\n  ask: ['write_file']\n")
    fake_provider.script(Reply(tool_calls=[ToolCall("write_file", {"path": "a", "content": "x"})]),
                         Reply(text="never"))
    raw = Raw(anthropic_env(hermes_home, fake_provider), tmp_path)
    assert "result" in raw.call(1, "initialize", {"protocolVersion": 1})
    sid = raw.call(2, "session/new", {"cwd": str(tmp_path), "mcpServers": []})["result"]["sessionId"]
    raw.send(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": {
        "sessionId": sid, "prompt": [{"type": "text", "text": "write a"}]}}))
    deadline = time.monotonic() + 60
    while json.loads(raw.lines.get(timeout=max(0.1, deadline - time.monotonic()))).get(
            "method") != "session/request_permission":
        pass  # updates before the question
    raw.proc.stdin.close()  # the editor quits without answering
    assert raw.proc.wait(timeout=30) == 0
    assert not (tmp_path / "a").exists()
    _only_protocol(raw, raw.proc.stderr.read().decode())
