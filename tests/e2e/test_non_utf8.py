"""Non-UTF-8 text from file names, argv and the working directory reaches the store
and the provider as visible \\xNN escapes; the turn is not lost."""

from __future__ import annotations

import json
import os

import pytest

from memory.store import SessionStore
from tests.fakes import Reply, ToolCall
from tests.helpers import anthropic_env, hermes, openai_env


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_search_over_a_non_utf8_file_name_keeps_the_turn(provider, fake_provider, hermes_home,
                                                         tmp_path):
    (tmp_path / os.fsdecode(b"g\xfe.txt")).write_text("needle\n")
    fake_provider.script(Reply(tool_calls=[ToolCall("search_files", {"pattern": "needle"})]),
                         Reply(text="found it"))
    env = (anthropic_env if provider == "anthropic" else openai_env)(hermes_home, fake_provider)
    result = hermes(["-q", "find the needle", "--json"], env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["answer"] == "found it"
    sent = json.dumps(fake_provider.requests[1].body)
    assert "g\\\\xfe.txt" in sent and "not UTF-8" in sent
    with SessionStore(hermes_home / "state.db") as store:
        sid = store.latest_session()["id"]
        tool_rows = [m for m in store.messages(sid) if m["role"] == "tool"]
    assert "g\\xfe.txt" in tool_rows[0]["content"]


def test_non_utf8_prompt_and_working_directory(fake_provider, hermes_home, tmp_path):
    folder = tmp_path / os.fsdecode(b"d\xfe")
    folder.mkdir()
    result = hermes(["-q", os.fsdecode(b"caf\xe9")], anthropic_env(hermes_home, fake_provider),
                    cwd=folder)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "prompt is not valid UTF-8" in result.stderr
    body = json.dumps(fake_provider.last.body)
    assert "caf\\\\xe9" in body and "d\\\\xfe" in body


def test_resume_with_non_utf8_or_empty_id_is_one_line(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    for word, expected in ((os.fsdecode(b"\xff"), "No session matches"),
                           ("", "--resume needs a session id")):
        result = hermes(["--resume", word, "-q", "hi"], env, cwd=tmp_path)
        assert result.returncode != 0
        assert "Traceback" not in result.stderr, result.stderr
        assert expected in result.stderr
    assert fake_provider.requests == []
