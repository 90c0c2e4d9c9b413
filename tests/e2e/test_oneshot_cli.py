"""`hermes -q` end to end: the real CLI process, the real SDKs, the fake server over HTTP."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.fakes import Error, Reply, ToolCall
from tests.helpers import HERMES, anthropic_env, child_env, hermes, openai_env, wait_until

pytestmark = pytest.mark.wire  # every test here runs the real CLI


def _usage_sums(records) -> dict[str, int]:
    """What the server REPORTED on the wire, summed (the figures hermes must match)."""
    sums = {"read": 0, "write": 0, "prompt": 0, "output": 0, "calls": 0}
    for r in records:
        if r.status != 200 or not r.path.endswith(("/messages", "/completions")):
            continue
        u = r.usage
        sums["calls"] += 1
        if r.api == "anthropic":
            sums["read"] += u.get("cache_read_input_tokens") or 0
            sums["write"] += u.get("cache_creation_input_tokens") or 0
            sums["prompt"] += u["input_tokens"] + sums_part(u)
            sums["output"] += u["output_tokens"]
        else:
            details = u.get("prompt_tokens_details") or {}
            sums["read"] += details.get("cached_tokens") or 0
            sums["write"] += details.get("cache_write_tokens") or 0
            sums["prompt"] += u["prompt_tokens"]
            sums["output"] += u["completion_tokens"]
    return sums


def sums_part(u: dict) -> int:
    return (u.get("cache_read_input_tokens") or 0) + (u.get("cache_creation_input_tokens") or 0)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_oneshot_tool_loop_and_usage_equal_server_record(provider, fake_provider, hermes_home, tmp_path):
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    fake_provider.script(
        Reply(text="Let me look.", tool_calls=[ToolCall("read_file", {"path": "notes.txt"})]),
        Reply(tool_calls=[ToolCall("search_files", {"pattern": "answer", "path": "."})]),
        Reply(text="The file says **42**.", chunks=5),
    )
    env = anthropic_env(hermes_home, fake_provider) if provider == "anthropic" else openai_env(hermes_home, fake_provider)
    result = hermes(["-q", "what does notes.txt say?", "--json"], env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["answer"] == "The file says **42**."
    assert "read_file" in result.stderr  # progress goes to stderr
    records = fake_provider.requests
    assert [r.status for r in records] == [200, 200, 200]
    # the tool result really reached the model
    assert "the answer is 42" in json.dumps(records[1].body)
    sums = _usage_sums(records)
    usage = payload["usage"]
    assert usage["calls"] == 3
    assert usage["cache_read"] == sums["read"]
    assert usage["cache_write"] == sums["write"]
    assert usage["uncached_input"] + usage["cache_write"] + usage["cache_read"] == sums["prompt"]
    assert usage["output"] == sums["output"]
    if sums["prompt"]:
        assert usage["hit_rate"] == pytest.approx(sums["read"] / sums["prompt"], abs=1e-6)


def test_plain_oneshot_prints_only_the_answer(fake_provider, hermes_home, tmp_path):
    fake_provider.script(Reply(text="hello back"))
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout == "hello back\n"


def test_continue_reads_the_cache_written_by_the_previous_process(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    first = hermes(["-q", "first question", "--json"], env, cwd=tmp_path)
    second = hermes(["-c", "-q", "second question", "--json"], env, cwd=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    one, two = json.loads(first.stdout), json.loads(second.stdout)
    assert one["session_id"] == two["session_id"]
    a, b = fake_provider.requests
    assert _bare(a.body["system"]) == _bare(b.body["system"])
    assert a.body["tools"] == b.body["tools"]
    assert b.cache_read >= a.cache_write > 0


def test_transient_error_is_retried(fake_provider, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("retry:\n  attempts: 3\n  base_delay: 0.01\n")
    fake_provider.script(Error(529), Error(429, retry_after=0.01), Reply(text="made it"))
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "made it\n"
    assert "retrying" in result.stderr
    assert [r.status for r in fake_provider.requests] == [529, 429, 200]


def test_provider_error_after_retries_is_one_clear_line(fake_provider, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("retry:\n  attempts: 2\n  base_delay: 0.01\n")
    fake_provider.script(Error(500, message="backend on fire"), Error(500, message="backend on fire"))
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 1
    assert "backend on fire" in result.stderr
    assert "Traceback" not in result.stderr


def test_fallback_model_answers_when_primary_fails(fake_provider, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text(
        "fallback_model: claude-haiku-4-5\nretry:\n  attempts: 1\n")
    fake_provider.script(Error(529), Reply(text="from the fallback"))
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "from the fallback\n"
    assert "fallback" in result.stderr
    assert [r.body["model"] for r in fake_provider.requests][-1] == "claude-haiku-4-5"


@pytest.mark.parametrize(
    ("setup", "args", "expected"),
    [
        ("nokey", ["-q", "hi"], "no provider configured"),
        ("anthropic-no-key", ["-q", "hi"], "missing API key"),
        ("ok", ["-q", "hi", "--provider", "bogus"], "unknown provider 'bogus'"),
        ("badyaml", ["-q", "hi"], "config.yaml line 3"),
        ("ok", ["--resume", "nope", "-q", "hi"], "nope"),
        ("ok", ["-q", "hi", "--skills", "no-such-skill"], "unknown skill"),
        ("ok", ["-q", "hi", "--toolsets", "file,nonsense"], "unknown toolset"),
        ("ok", ["sessions", "show", "zzz"], "zzz"),
    ],
)
def test_user_errors_are_one_clear_line(setup, args, expected, fake_provider, hermes_home, tmp_path):
    env = child_env(hermes_home)
    if setup in ("ok", "badyaml"):
        env = anthropic_env(hermes_home, fake_provider)
    if setup == "anthropic-no-key":
        (hermes_home / "config.yaml").write_text("provider: anthropic\n")
    if setup == "badyaml":
        (hermes_home / "config.yaml").write_text("model: x\ncache: [unclosed\n  ttl: 5m\n")
    result = hermes(args, env, cwd=tmp_path)
    assert result.returncode != 0
    assert expected in result.stderr
    assert "Traceback" not in result.stderr
    assert not fake_provider.requests


def test_unreachable_base_url_is_a_clear_error(hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("retry:\n  attempts: 1\n")
    env = child_env(hermes_home, ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL="http://127.0.0.1:9")
    result = hermes(["-q", "hi"], env, cwd=tmp_path)
    assert result.returncode == 1
    assert "127.0.0.1:9" in result.stderr
    assert "Traceback" not in result.stderr


def test_kill_mid_turn_then_resume_cleanly(fake_provider, hermes_home, tmp_path):
    """SIGKILL while the second model call streams: every completed message is on disk,
    and the resumed session sends a valid history (the fake rejects orphan tool calls)."""
    (tmp_path / "a.txt").write_text("alpha\n")
    fake_provider.script(
        Reply(tool_calls=[ToolCall("read_file", {"path": "a.txt"})]),
        Reply(text="x" * 400, delay=0.2, chunks=40),  # slow: killed in flight
    )
    env = anthropic_env(hermes_home, fake_provider)
    proc = subprocess.Popen([*HERMES, "-q", "read a.txt"], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_until(lambda: len(fake_provider.requests) == 2 and fake_provider.requests[1].events_sent >= 2,
               timeout=60, what="the second call to stream")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert len(fake_provider.requests) == 2
    fake_provider.script(Reply(text="resumed fine"))
    result = hermes(["-c", "-q", "go on", "--json"], env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["answer"] == "resumed fine"
    last = fake_provider.requests[-1]
    assert last.status == 200
    wire = json.dumps(last.body["messages"])
    assert "alpha" in wire  # the tool result committed before the kill was kept
    assert "go on" in wire
    # the resumed call re-sent the identical system prompt and read the old prefix
    assert _bare(last.body["system"]) == _bare(fake_provider.requests[0].body["system"])
    assert last.cache_read > 0


def test_sessions_commands(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(Reply(text="first answer"))
    out = json.loads(hermes(["-q", "remember the tulips", "--json"], env, cwd=tmp_path).stdout)
    sid = out["session_id"]
    listed = hermes(["sessions", "list"], env)
    assert sid in listed.stdout and "remember the tulips" in listed.stdout
    assert listed.stdout.splitlines()[0] == "id\tupdated\tmodel\tmessages\tcost\ttitle"
    shown = hermes(["sessions", "show", sid[:15]], env)
    assert "first answer" in shown.stdout
    exported = json.loads(hermes(["sessions", "export", sid, "--format", "json"], env).stdout)
    assert [m["content"] for m in exported["messages"]] == ["remember the tulips", "first answer"]
    md = hermes(["sessions", "export", sid, "--format", "md"], env).stdout
    assert "## User" in md and "remember the tulips" in md
    usage = json.loads(hermes(["sessions", "usage", sid, "--json"], env).stdout)
    assert usage["session"]["calls"] == 1
    assert usage["session"]["write_5m"] == fake_provider.requests[0].cache_write
    deleted = hermes(["sessions", "delete", sid, "--yes"], env)
    assert deleted.returncode == 0
    assert sid not in hermes(["sessions", "list"], env).stdout


def test_unknown_model_costs_unknown_in_json_and_sessions_usage(fake_provider, hermes_home,
                                                                 tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(Reply(text="priced by nobody"))
    out = json.loads(hermes(["-q", "hi", "--json", "--model", "mystery-model-9"], env,
                            cwd=tmp_path).stdout)
    assert out["usage"]["cost_usd"] is None
    report = json.loads(hermes(["sessions", "usage", out["session_id"], "--json"], env).stdout)
    assert report["session"]["cost"] is None and report["session"]["savings"] is None
    assert report["unpriced_models"] == ["mystery-model-9"] and report["price_sources"] == []
    text = hermes(["sessions", "usage", out["session_id"]], env).stdout
    assert "prices: unknown for mystery-model-9" in text and "$" not in text


def test_sessions_usage_names_its_price_source_and_config_wins(fake_provider, hermes_home,
                                                               tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(Reply(text="first"), Reply(text="second"))
    sid = json.loads(hermes(["-q", "hi", "--json"], env, cwd=tmp_path).stdout)["session_id"]
    record = fake_provider.requests[0]
    text = hermes(["sessions", "usage", sid], env).stdout
    assert "prices: genai-prices 0.2.3 (data of 2026-11)" in text
    # claude-sonnet-5-5 at $2 in, $2.50 per 5m write, $0.10 read, $10 out (by hand)
    stored = json.loads(hermes(["sessions", "usage", sid, "--json"], env).stdout)
    assert stored["session"]["cost"] == pytest.approx(
        (record.usage["input_tokens"] * 2 + record.cache_write * 2.5 + record.cache_read * 0.1
         + record.usage["output_tokens"] * 10) / 1e6)
    (hermes_home / "config.yaml").write_text(
        "prices: {claude-sonnet-5-5: {input: 100, output: 1000, cache_write_5m: 0, "
        "cache_read: 0}}\n")
    out = json.loads(hermes(["-q", "again", "--json"], env, cwd=tmp_path).stdout)
    record = fake_provider.requests[-1]
    assert out["usage"]["cost_usd"] == pytest.approx(
        (record.usage["input_tokens"] * 100 + record.usage["output_tokens"] * 1000) / 1e6)
    text = hermes(["sessions", "usage", out["session_id"]], env).stdout
    assert "prices: config.yaml prices: (claude-sonnet-5-5)" in text


def test_models_command_lists_prices_windows_and_sources(hermes_home):
    env = child_env(hermes_home)
    listed = hermes(["models"], env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert "from genai-prices 0.2.3 (data of 2026-11)" in lines[0]
    haiku = next(i for i, line in enumerate(lines) if "claude-haiku-5-5" in line)
    assert "1,000,000 ctx  cache min 4,096  $0.1 / $0.5, read $0.01" in lines[haiku]
    assert "$0.5 / $2.5, read $0.05" in lines[haiku + 1] and "above 100,000" in lines[haiku + 1]
    assert any("gpt-5.5" in line and "$5 / $30" in line for line in lines)
    assert any("claude-mythos-5 " in line and "unknown ctx" in line and "price unknown" in line
               for line in lines)
    (hermes_home / "config.yaml").write_text(
        "prices: {claude-haiku-5-5: {input: 7, output: 9}}\n"
        "context_windows: {claude-haiku-5-5: 5000}\n")
    data = json.loads(hermes(["models", "--json", "claude-haiku-5-5", "claude-sonnet-4-5",
                              "no-such-model"], env).stdout)
    haiku, sonnet, unknown = data
    assert haiku["price_source"] == "config.yaml prices:" and haiku["context_window"] == 5000
    assert {(t["input"], t["output"]) for t in haiku["prices"]} == {(7.0, 9.0)}
    assert sonnet["provider"] == "anthropic" and sonnet["context_window"] == 200_000
    assert [(t["above_tokens"], t["input"], t["output"]) for t in sonnet["prices"]] == [
        (0, 3.0, 15.0), (200_000, 6.0, 22.5)]
    assert unknown["prices"] == [] and unknown["price_source"] is None
    assert unknown["context_window"] is None


def test_version_and_help(hermes_home):
    env = child_env(hermes_home)
    assert hermes(["--version"], env).stdout.startswith("hermes ")
    helped = hermes(["--help"], env)
    assert "--skills" in helped.stdout and "--resume" in helped.stdout


def test_prompt_show_and_skills_cli(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    shown = hermes(["prompt", "show"], env, cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "total re-sent on every call" in shown.stdout and "tool schemas" in shown.stdout
    assert not list(Path(hermes_home).glob("state.db")) or "not saved" in shown.stdout
    listed = hermes(["skills", "list"], env)
    assert "git-commit (bundled)" in listed.stdout
    one = hermes(["skills", "show", "debugging"], env)
    assert one.returncode == 0 and "name: debugging" in one.stdout


def test_continue_keeps_the_sessions_own_model(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    first = hermes(["-m", "claude-opus-5", "-q", "hello", "--json"], env, cwd=tmp_path)
    second = hermes(["-c", "-q", "again", "--json"], env, cwd=tmp_path)
    assert first.returncode == 0 and second.returncode == 0, second.stderr
    assert "instead of" not in second.stderr
    a, b = fake_provider.requests
    assert a.body["model"] == b.body["model"] == "claude-opus-5"
    assert _bare(a.body["system"]) == _bare(b.body["system"]) and b.cache_read > 0
    third = hermes(["-c", "-m", "claude-sonnet-5", "-q", "switch", "--json"], env, cwd=tmp_path)
    assert third.returncode == 0 and "instead of" in third.stderr  # an explicit flag wins
    assert fake_provider.requests[-1].body["model"] == "claude-sonnet-5"


def _bare(system: list[dict]) -> list[dict]:
    """System blocks without cache markers: a chain's first request also marks the shared
    blocks' ends (agent.modelcall.caching), which are not prefix bytes."""
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in system]
