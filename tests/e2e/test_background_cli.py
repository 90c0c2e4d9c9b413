"""Background runs end to end: `hermes -q PROMPT --bg` returns with the session id while
the run goes on; `hermes ps` lists it; `hermes logs ID` shows its answer."""

from __future__ import annotations

import pytest

from tests.fakes import Reply
from tests.helpers import anthropic_env, hermes, wait_until

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
    wait_until(lambda: "done" in hermes(["ps"], env, cwd=tmp_path).stdout, timeout=30,
               what="the background run to finish")
    logs = hermes(["logs", session_id], env, cwd=tmp_path)
    assert logs.returncode == 0
    assert "the background answer is 42" in logs.stdout and "-- done" in logs.stdout
    assert "user: what is the answer?" in logs.stdout


def test_bg_without_q_is_a_one_line_error(hermes_home, tmp_path, fake_provider):
    result = hermes(["--bg"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 1
    assert "--bg goes with -q" in result.stderr and "Traceback" not in result.stderr
