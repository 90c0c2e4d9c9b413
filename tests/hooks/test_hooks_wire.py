"""Hooks end to end: the real agent and SDK against the fake provider server, real hook
processes (sh). What the model reads is asserted on the fake server's record of the
next request; the tools and system bytes on every request of the session."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agent.events import Done, ErrorEvent, Notice
from agent.hooks.config import parse
from agent.hooks.events import SessionHooks
from agent.hooks.runner import Environment
from agent.messages import ToolCall as Call
from agent.messages import canonical_json
from agent.tools.registry import ToolContext, ToolRegistry, discover
from tests.fakes import Reply, ToolCall
from tests.helpers import host_pids_running, make_agent, run

pytestmark = pytest.mark.wire


def _hooks(**events: list) -> object:
    return parse({name: groups for name, groups in events.items()}, "test config.yaml")


def _cmd(command: str, matcher: str | None = None, timeout: float = 10) -> list:
    group = {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}
    return [group | ({"matcher": matcher} if matcher is not None else {})]


def _tool_results(body) -> str:
    return json.dumps([b for b in body["messages"][-1]["content"] if b["type"] == "tool_result"])


def _last_user_text(body) -> str:
    message = body["messages"][-1]
    assert message["role"] == "user"
    return "".join(b.get("text", "") for b in message["content"] if b.get("type") == "text")


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _record(folder: Path) -> str:
    """A hook command keeping each payload in a file of its own (calls run in parallel)."""
    folder.mkdir(exist_ok=True)
    return f"cat > $(mktemp {folder}/payload.XXXXXX)"


def _recorded(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.iterdir())]


def _work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    return work


def test_pre_tool_use_exit_2_blocks_and_its_stderr_reaches_the_model(fake_provider, hermes_home, tmp_path):
    work = _work(tmp_path)
    hooks = _hooks(PreToolUse=_cmd("echo 'no shell here: use write_file' >&2; exit 2", "terminal"))
    agent = make_agent(fake_provider, hermes_home, work, hooks=hooks)
    try:
        fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": "touch made.txt"}),
                                               ToolCall("write_file", {"path": "ok.txt", "content": "x\n"})]),
                             Reply(text="done"))
        run(agent, "make two files")
        results = _tool_results(fake_provider.requests[-1].body)
        assert "Blocked by a PreToolUse hook: no shell here: use write_file" in results, results
        assert not (work / "made.txt").exists()
        assert (work / "ok.txt").read_text() == "x\n"  # the matcher named only the terminal
    finally:
        agent.close()


def test_post_tool_use_sees_every_call_with_claude_codes_fields(fake_provider, hermes_home, tmp_path):
    work = _work(tmp_path)
    (work / "a.txt").write_text("alpha\n")
    post, pre = work / "post", work / "pre"  # hooks write the workspace (in the sandbox)
    hooks = _hooks(PostToolUse=_cmd(_record(post)), PreToolUse=_cmd(_record(pre)))
    agent = make_agent(fake_provider, hermes_home, work, hooks=hooks)
    calls = [ToolCall("read_file", {"path": "a.txt"}), ToolCall("read_file", {"path": "missing.txt"}),
             ToolCall("terminal", {"command": "echo hi"}),
             ToolCall("write_file", {"path": "b.txt", "content": "beta\n"})]
    try:
        fake_provider.script(Reply(tool_calls=calls), Reply(text="done"))
        run(agent, "go")
        seen = _recorded(post)
        assert sorted(e["tool_name"] for e in seen) == ["read_file", "read_file", "terminal", "write_file"]
        assert len(_recorded(pre)) == 4
        by_input = {canonical_json(e["tool_input"]): e for e in seen}
        assert by_input[canonical_json({"path": "a.txt"})]["tool_response"]["content"].endswith("1|alpha")
        assert by_input[canonical_json({"path": "missing.txt"})]["tool_response"]["is_error"] is True
        assert by_input[canonical_json({"command": "echo hi"})]["tool_response"]["content"].startswith("hi")
        for event in seen:
            assert event["hook_event_name"] == "PostToolUse"
            assert event["session_id"] == agent.session_id and event["cwd"] == str(work)
    finally:
        agent.close()


def test_prompt_context_is_in_the_user_message_and_no_cached_byte_changes(fake_provider, hermes_home, tmp_path):
    """UserPromptSubmit and SessionStart stdout reach the model in the user message; the
    system prompt and tools are byte-identical on every request, across plan-mode switches."""
    work = _work(tmp_path)
    hooks = _hooks(UserPromptSubmit=_cmd("echo \"branch-ctx: $(cat)\" | head -c 60"),
                   SessionStart=_cmd("echo SESSION-START-CONTEXT"))
    agent = make_agent(fake_provider, hermes_home, work, hooks=hooks)
    try:
        fake_provider.script(Reply(text="one"))
        run(agent, "first")
        first = _last_user_text(fake_provider.requests[-1].body)
        assert "SESSION-START-CONTEXT" in first and "branch-ctx: {" in first, first
        for mode, text in (("plan", "second"), ("", "third"), ("plan", "fourth")):
            agent.set_mode(mode)
            fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "none.txt"})]),
                                 Reply(text="ok"))
            run(agent, text)
            latest = fake_provider.requests[-2].body
            assert "branch-ctx" in _last_user_text(latest)
            assert "SESSION-START-CONTEXT" not in _last_user_text(latest)  # once per session
        bodies = [r.body for r in fake_provider.requests]
        assert len({canonical_json(b["tools"]) for b in bodies}) == 1
        systems = {"".join(block["text"] for block in b["system"]) for b in bodies}
        assert len(systems) == 1 and "branch-ctx" not in systems.pop()
        first_again = bodies[-1]["messages"][0]["content"][0]["text"]
        assert first_again == bodies[0]["messages"][0]["content"][0]["text"]  # re-sent as stored
        misses = [r["miss_cause"] for r in agent.store.usage_rows(agent.session_id) if r.get("miss_cause")]
        print(f"\n[hooks] {len(bodies)} requests, 3 mode changes, cache misses: {misses}")
        assert misses in ([], ["cold"]), misses
    finally:
        agent.close()


def test_a_hanging_hook_times_out_and_a_crashing_one_is_a_warning(fake_provider, hermes_home, tmp_path):
    work = _work(tmp_path)
    hooks = _hooks(PreToolUse=_cmd("sleep 987 & sleep 986", timeout=1) + _cmd("exit 3"),
                   UserPromptSubmit=_cmd("/no/such/hook-program"))
    agent = make_agent(fake_provider, hermes_home, work, hooks=hooks)
    try:
        fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": "echo ran"})]),
                             Reply(text="done"))
        started = time.monotonic()
        events = run(agent, "go")
        assert time.monotonic() - started < 20
        warnings = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
        assert any("did not finish within 1s and was stopped" in w for w in warnings), warnings
        assert any("failed (exit 3)" in w for w in warnings), warnings
        assert any("UserPromptSubmit hook `/no/such/hook-program` failed (exit 127)" in w
                   for w in warnings), warnings
        assert "ran" in _tool_results(fake_provider.requests[-1].body)  # the tool still ran
        deadline = time.monotonic() + 10
        while host_pids_running("sleep 98") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert host_pids_running("sleep 98") == []  # its whole process group was killed
    finally:
        agent.close()


def test_a_stop_hook_continues_a_turn_at_most_once(fake_provider, hermes_home, tmp_path):
    work = _work(tmp_path)
    log = work / "stop.log"
    hooks = _hooks(Stop=_cmd(f"cat >> {log}; echo >> {log}; echo 'run the tests first' >&2; exit 2"))
    agent = make_agent(fake_provider, hermes_home, work, hooks=hooks)
    try:
        fake_provider.script(Reply(text="finished"), Reply(text="tests pass, finished"))
        events = run(agent, "fix it")
        assert len(fake_provider.requests) == 2
        assert "run the tests first" in _last_user_text(fake_provider.requests[-1].body)
        assert events[-1].answer == "tests pass, finished"
        assert any(isinstance(e, Notice) and "at most once" in e.text for e in events)
        assert [e["stop_hook_active"] for e in _log(log)] == [False, True]
        assert _log(log)[0]["last_message"] == "finished"
        fake_provider.script(Reply(text="next turn"), Reply(text="continued"))
        run(agent, "again")  # a new turn may continue once again
        assert len(fake_provider.requests) == 4
    finally:
        agent.close()


def test_user_prompt_submit_exit_2_sends_nothing(fake_provider, hermes_home, tmp_path):
    work = _work(tmp_path)
    hooks = _hooks(UserPromptSubmit=_cmd("grep -q password && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0"))
    agent = make_agent(fake_provider, hermes_home, work, hooks=hooks)
    try:
        events = list(agent.run_turn("my password is hunter2"))
        assert isinstance(events[-1], Done) and events[-1].reason == "error"
        errors = [e for e in events if isinstance(e, ErrorEvent)]
        assert errors and "no secrets in prompts" in errors[0].message
        assert fake_provider.requests == [] and agent.conversation.messages == []
        fake_provider.script(Reply(text="hi"))
        run(agent, "hello")  # the hook lets this one through
    finally:
        agent.close()


def test_hooks_get_the_tools_environment_allowlist(fake_provider, hermes_home, tmp_path, monkeypatch):
    work = _work(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret-provider-key")
    monkeypatch.setenv("HERMES_DATABASE_URL", "postgresql://u:pw@h/db")
    monkeypatch.setenv("SOMETHING_ELSE", "x")
    out = work / "env.txt"
    agent = make_agent(fake_provider, hermes_home, work, hooks=_hooks(UserPromptSubmit=_cmd(f"env > {out}")))
    try:
        fake_provider.script(Reply(text="hi"))
        run(agent, "hello")
        names = {line.split("=", 1)[0] for line in out.read_text().splitlines()}
        assert {"PATH", "HOME", "HERMES_PROJECT_DIR", "HERMES_SESSION_ID"} <= names
        assert not names & {"ANTHROPIC_API_KEY", "HERMES_DATABASE_URL", "SOMETHING_ELSE"}
    finally:
        agent.close()


def test_overhead_of_an_empty_pre_tool_use_hook(tmp_path):
    """Per-call cost of a PreToolUse hook that does nothing (`true`, a tiny python script)."""
    import sys

    (tmp_path / "a.txt").write_text("a\n")
    script = tmp_path / "hook.py"
    script.write_text("import sys, json\njson.load(sys.stdin)\n")
    registry = ToolRegistry(discover())

    def per_call(command: str | None, n: int = 20) -> float:
        hooks = None
        if command is not None:
            hooks = SessionHooks(_hooks(PreToolUse=_cmd(command)), Environment(tmp_path))
        ctx = ToolContext(session_id="s", home=tmp_path, cwd=tmp_path, hooks=hooks)
        started = time.perf_counter()
        for i in range(n):
            result = registry.dispatch(Call(f"c{i}", "read_file", '{"path":"a.txt"}'), ctx)
            assert result.ok, result.content
        return (time.perf_counter() - started) / n * 1000

    base = per_call(None)
    true_ms = per_call("true") - base
    python_ms = per_call(f"{sys.executable} -I -S {script}") - base
    print(f"\n[hooks] empty PreToolUse overhead per tool call: `true` {true_ms:.1f} ms, "
          f"python script {python_ms:.1f} ms (read_file alone {base:.2f} ms)")
    assert true_ms < 500 and python_ms < 2000


def test_cancelling_the_turn_stops_a_running_hook_at_once(fake_provider, hermes_home, tmp_path):
    import threading

    from agent.cancel import CancelToken

    work = _work(tmp_path)
    began = work / "began"
    hooks = _hooks(PreToolUse=_cmd(f"touch {began}; sleep 985", timeout=120))
    agent = make_agent(fake_provider, hermes_home, work, hooks=hooks)
    cancel = CancelToken()
    events: list = []
    try:
        fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": "touch ran.txt"})]),
                             Reply(text="never"))
        worker = threading.Thread(target=lambda: events.extend(agent.run_turn("go", cancel)))
        worker.start()
        deadline = time.monotonic() + 30
        while not began.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert began.exists()
        stopped = time.monotonic()
        cancel.cancel()
        worker.join(30)
        assert not worker.is_alive() and time.monotonic() - stopped < 10
        assert isinstance(events[-1], Done) and events[-1].reason == "cancelled"
        assert not (work / "ran.txt").exists()  # the tool never ran
        assert not [e for e in events if isinstance(e, Notice) and "did not finish" in e.text]
        assert host_pids_running("sleep 985") == []
    finally:
        agent.close()


@pytest.mark.parametrize(("failures", "resets", "ran"), [(1, 0, True), (2, 1, True), (3, 1, False)])
def test_a_failed_sandboxed_start_is_tried_again(tmp_path, failures, resets, ran):
    """As the terminal does (the intermittent pre-exec failure): once more, then in
    a fresh sandbox session; a third failure is a warning naming the cause."""
    import contextlib

    from agent.hooks.runner import Place
    from agent.hooks.runner import run as run_hook

    calls = {"launches": 0, "resets": 0}

    @contextlib.contextmanager
    def confine():
        calls["launches"] += 1
        failing = calls["launches"] <= failures

        def preexec() -> None:
            if failing:
                raise OSError("sandbox setns mnt: Invalid argument")
        yield preexec

    place = Place(confine, lambda: calls.__setitem__("resets", calls["resets"] + 1))
    command = parse({"Stop": [{"hooks": [{"command": "echo ran"}]}]}, "x").commands("Stop")[0]
    answer = run_hook(command, {}, dict(os.environ), tmp_path, None, place)
    assert calls["resets"] == resets
    if ran:
        assert not answer.warnings, answer
    else:
        assert "could not start in the tool sandbox" in answer.warnings[0]
        assert "sandbox: host" in answer.warnings[0]  # the cause: tests/sandbox/test_preexec_report.py
