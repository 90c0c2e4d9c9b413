"""`hermes -q --output-format stream-json|json` end to end: the real CLI, the fake
provider over HTTP; the figures checked against what the server recorded."""

from __future__ import annotations

import json

import pytest

from tests.fakes import Reply, ToolCall
from tests.helpers import anthropic_env, hermes

pytestmark = pytest.mark.wire  # every test here runs the real CLI


def _lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines()]  # each line is JSON


def test_stream_json_follows_the_run_and_ends_in_a_result(fake_provider, hermes_home, tmp_path):
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    fake_provider.script(
        Reply(text="Let me look.", tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
        Reply(text="It says 42.", chunks=3),
    )
    run = hermes(["-q", "what does notes.txt say?", "--output-format", "stream-json"],
                 anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    events = _lines(run.stdout)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "result" and kinds.count("result") == 1
    start, result = events[0], events[-1]
    assert start["session_id"] == result["session_id"] and "read_file" in start["tools"]
    assert start["model"]
    used = next(e for e in events if e["type"] == "tool_use")
    done = next(e for e in events if e["type"] == "tool_result")
    assert used["name"] == "read_file" and "notes.txt" in used["arguments"]
    assert done["id"] == used["id"] and done["ok"] and "the answer is 42" in done["content"]
    assert kinds.index("tool_use") < kinds.index("tool_result")
    said = "".join(e["text"] for e in events if e["type"] == "text")
    assert said.endswith("It says 42.") and result["answer"] == "It says 42."
    assert result["is_error"] is False and result["stop_reason"] == "answer"
    calls = [r for r in fake_provider.requests if r.path == "/v1/messages"]
    usage = result["usage"]
    assert usage["calls"] == len(calls) == kinds.count("usage") == 2
    assert usage["output"] == sum(r.usage["output_tokens"] for r in calls)
    assert usage["cache_read"] == sum(r.usage.get("cache_read_input_tokens") or 0 for r in calls)
    assert usage["session"]["calls"] == 2 and usage["session"]["cost_usd"] == usage["cost_usd"]


def _evicting(fake_provider):
    """The second call of each run finds the cache gone (the fake's clock jumps past every
    TTL while hermes' does not): hermes diagnoses the miss as the provider's drop."""
    def respond(rec):
        fake_provider.clock.advance(3600)
        return Reply(text="done")

    fake_provider.responder = respond


def test_json_and_stream_json_carry_the_miss_cause_and_storage(fake_provider, hermes_home, tmp_path):
    """Before: -q --json had no miss cause and no storage figures, as README promises."""
    (tmp_path / "a.txt").write_text("a\n")
    env = anthropic_env(hermes_home, fake_provider)
    _evicting(fake_provider)
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})]))
    run = hermes(["-q", "read a.txt", "--json"], env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    usage = json.loads(run.stdout)["usage"]
    calls = [r for r in fake_provider.requests if r.path == "/v1/messages"]
    assert calls[1].usage.get("cache_read_input_tokens") == 0  # the server's record: a miss
    assert [(m["call_index"], m["cause"]) for m in usage["misses"]] == [(2, "unknown")], usage
    assert usage["misses"][0]["explanation"].startswith("the prefix was unchanged")
    assert usage["stored_token_hours"] == 0.0 and usage["storage_cost"] == 0.0
    assert usage["session"]["calls"] == 2
    fake_provider.script(Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})]))
    streamed = hermes(["-q", "read it again", "--output-format", "stream-json"], env, cwd=tmp_path)
    events = _lines(streamed.stdout)
    assert events[-1]["usage"].keys() == usage.keys()  # one builder
    assert [e["miss_cause"] for e in events if e["type"] == "usage"][1] == "unknown"
    assert [m["cause"] for m in events[-1]["usage"]["misses"]] == ["unknown"]


def test_a_failed_run_is_an_error_result(fake_provider, hermes_home, tmp_path):
    from tests.fakes import Error

    fake_provider.script(Error(400, "bad request"))
    run = hermes(["-q", "hi", "--output-format", "stream-json"],
                 anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert run.returncode == 1
    result = _lines(run.stdout)[-1]
    assert result["type"] == "result" and result["is_error"] is True and result["error"]


def test_bad_format_flags_are_one_line(hermes_home):
    from tests.helpers import child_env

    run = hermes(["-q", "hi", "--output-format", "yaml"], child_env(hermes_home))
    assert run.returncode == 1 and "is not a format" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_a_run_that_never_starts_still_ends_in_a_result(fmt, hermes_home, tmp_path):
    """A script reading stdout gets a result even when start-up fails (no provider)."""
    from tests.helpers import child_env

    run = hermes(["-q", "hi", "--output-format", fmt], child_env(hermes_home), cwd=tmp_path)
    assert run.returncode == 1 and "no provider configured" in run.stderr
    result = _lines(run.stdout)[-1]
    assert result["is_error"] is True and "no provider configured" in result["error"]
    assert result["session_id"] is None and result["usage"]["calls"] == 0
