"""Background runs end to end: `hermes -q PROMPT --bg` returns with the session id while
the run goes on; `hermes ps` lists it; `hermes logs ID` shows its answer."""

from __future__ import annotations

import pytest

from tests.fakes import Reply, ToolCall
from tests.helpers import anthropic_env, hermes

pytestmark = pytest.mark.wire


def test_bg_returns_at_once_and_logs_show_the_answer(fake_provider, hermes_home, tmp_path):
    fake_provider.script(Reply(text="the background answer is 42", delay=1.0, chunks=4))
    env = anthropic_env(hermes_home, fake_provider)
    started = hermes(["-q", "what is the answer?", "--bg"], env, cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    session_id = started.stdout.strip()
    assert session_id and "hermes logs" in started.stderr
    # it came back before the run sent its request (which then streams for 4 s)
    assert not fake_provider.requests and "the background answer" not in started.stdout
    listed = hermes(["ps"], env, cwd=tmp_path)
    assert session_id in listed.stdout and "running" in listed.stdout
    followed = hermes(["logs", session_id, "-f"], env, cwd=tmp_path, timeout=90)  # to its end
    assert followed.returncode == 0, followed.stderr
    assert "the background answer is 42" in followed.stdout and "-- done" in followed.stdout
    assert "user: what is the answer?" in followed.stdout
    assert f"{session_id}   done" in hermes(["ps"], env, cwd=tmp_path).stdout
    logs = hermes(["logs", session_id[:12]], env, cwd=tmp_path)  # a prefix, as --resume takes
    assert "answer:\nthe background answer is 42" in logs.stdout
    # `--resume ID` continues it like any session
    fake_provider.script(Reply(text="still 42"))
    again = hermes(["-q", "and now?", "--resume", session_id], env, cwd=tmp_path)
    assert again.stdout.strip() == "still 42"
    assert len(fake_provider.requests[-1].body["messages"]) == 3


def test_a_background_run_refuses_what_nobody_can_approve(fake_provider, hermes_home, tmp_path):
    fake_provider.script(
        Reply(tool_calls=[ToolCall("terminal", {"command": "rm -rf ~/.cache/x",
                                                "outside_sandbox": True})]),
        Reply(text="could not run it"))
    env = anthropic_env(hermes_home, fake_provider)
    started = hermes(["-q", "clean the cache", "--bg"], env, cwd=tmp_path)
    session_id = started.stdout.strip()
    logs = hermes(["logs", session_id, "-f"], env, cwd=tmp_path, timeout=90)
    assert "could not run it" in logs.stdout
    result = [m for m in fake_provider.requests[-1].body["messages"] if m["role"] == "user"][-1]
    # refused at once (nobody is there to ask), and the refusal is in its transcript
    assert "refused: only a person at the interactive prompt" in str(result)
    assert "refused: only a person" in logs.stdout and "-- done" in logs.stdout


def test_bg_without_q_is_a_one_line_error(hermes_home, tmp_path, fake_provider):
    result = hermes(["--bg"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 1
    assert "--bg goes with -q" in result.stderr and "Traceback" not in result.stderr


def test_ps_with_no_runs_and_logs_of_an_unknown_id(hermes_home, tmp_path, fake_provider):
    env = anthropic_env(hermes_home, fake_provider)
    listed = hermes(["ps"], env, cwd=tmp_path)
    assert listed.returncode == 0 and "No background runs" in listed.stdout
    unknown = hermes(["logs", "nosuch"], env, cwd=tmp_path)
    assert unknown.returncode == 1 and "Traceback" not in unknown.stderr
    assert len(unknown.stderr.strip().splitlines()) <= 2 and "nosuch" in unknown.stderr
