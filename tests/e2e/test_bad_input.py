"""Bad input gets a clear error and loses nothing: malformed config, broken skills and
notes, unusable HERMES_HOME / state.db, provider trouble, signals mid-turn.

Subprocess tests run the real `hermes`; config shapes are also checked in-process
(load_settings + agent_config, no monkeypatching) to keep the suite fast.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from agent.errors import ConfigError
from frontend.config.settings import load_settings
from frontend.setup import Flags, agent_config
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall
from tests.helpers import (
    HERMES,
    anthropic_env,
    child_env,
    hermes,
    host_pids_running,
    read_only_mount,
    wait_until,
    without_file_override,
)


def _clear_failure(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    assert result.returncode != 0, result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    assert "hermes: error:" in result.stderr
    for text in expected:
        assert text in result.stderr, result.stderr


# ---- config.yaml and .env ---------------------------------------------------------

@pytest.mark.parametrize(("yaml_text", "expected"), [
    ("max_iterations: lots\n", "`max_iterations` must be a whole number, got 'lots'"),
    ("toolsets: file\n", "`toolsets` must be a list"),
    ("cache: 5m\n", "`cache` must be a mapping of settings, got '5m'"),
    ("cache: {ttl: 2h}\n", "`cache.ttl` must be 5m or 1h"),
    ("prices: [1, 2]\n", "`prices` must be a mapping"),
    ("prices: {m: 5}\n", "`prices.m` must be a mapping of prices"),
    ("prices: {m: {input: cheap}}\n", "`prices.m.input` must be a number"),
    ("personalities: x\n", "`personalities` must be a mapping"),
    ("retry: {attempts: -1}\n", "`retry.attempts` must be between 1 and 100, got -1"),
    ("retry: 5\n", "`retry` must be a mapping of settings"),
    ("memory: yes\n", "`memory` must be a mapping of settings"),
    ("max_tokens: 0\n", "`max_tokens` must be at least 1"),
    ("max_iterations: 0\n", "`max_iterations` must be at least 1"),
    ("compression: {threshold: 7}\n", "`compression.threshold` must be between 0 and 1"),
    ("context_windows: {m: big}\n", "`context_windows.m` must be a whole number"),
    ("timeout: 0\n", "`timeout` must be greater than 0"),
    ("timeout: 10m\n", "`timeout` must be a number"),
    ("skills: [1]\n", "`skills` must be a list of names"),
])
def test_wrong_config_types_are_named_with_a_fix(yaml_text, expected, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("provider: anthropic\napi_key: k\n" + yaml_text)
    with pytest.raises(ConfigError) as caught:
        agent_config(load_settings(hermes_home), Flags(), tmp_path)
    assert expected in caught.value.message
    assert caught.value.hint


def test_timeout_setting_reaches_the_provider(hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("provider: anthropic\napi_key: k\ntimeout: 42\n")
    assert agent_config(load_settings(hermes_home), Flags(), tmp_path).provider.timeout == 42


@pytest.mark.parametrize(("content", "expected"), [
    (b"cache: 5m\n", "`cache` must be a mapping"),
    (b"- a\n- b\n", "must be a mapping of settings (key: value), not a list"),
    (b"\xff\xfe\x00binary\x80", "is not UTF-8 text"),
])
def test_bad_config_file_is_one_clear_line(content, expected, fake_provider, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_bytes(content)
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    _clear_failure(result, expected)
    assert not fake_provider.requests


@pytest.mark.parametrize(("content", "expected"), [
    (b"\xff\xfeKEY=1\n", ".env is not UTF-8 text"),
    (b"GOOD=1\nthis is not valid\n", ".env line 2: expected KEY=VALUE, got 'this is not valid'"),
])
def test_bad_dotenv_is_one_clear_line(content, expected, fake_provider, hermes_home, tmp_path):
    (hermes_home / ".env").write_bytes(content)
    _clear_failure(hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path),
                   expected)


def test_unreadable_config_says_permission_denied(fake_provider, hermes_home, tmp_path):
    path = hermes_home / "config.yaml"
    path.write_text("model: x\n")
    path.chmod(0)  # the user's own mistake; as root, hermes runs without the override caps
    _clear_failure(hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path,
                          wrapper=without_file_override()),
                   "permission denied", "chmod u+r")


# ---- HERMES_HOME and state.db -------------------------------------------------------

@pytest.mark.parametrize("args", [["-q", "hi"], ["sessions", "list"], ["prompt", "show"]])
def test_hermes_home_that_is_a_file(args, fake_provider, tmp_path):
    home = tmp_path / "not-a-dir"
    home.write_text("x")
    result = hermes(args, anthropic_env(home, fake_provider), cwd=tmp_path)
    _clear_failure(result, "is a file, not a directory", "point HERMES_HOME at a directory")


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="needs Linux /proc")
def test_unwritable_hermes_home_is_a_clear_error(fake_provider, tmp_path):
    # /proc/self/fdinfo is a directory no one (root included) can create files in
    env = anthropic_env(Path("/proc/self/fdinfo"), fake_provider)
    _clear_failure(hermes(["-q", "hi"], env, cwd=tmp_path),
                   "cannot write the session store", "writable")
    assert not fake_provider.requests


def test_read_only_hermes_home_is_a_clear_error(fake_provider, hermes_home, tmp_path):
    # a read-only bind mount in a private mount namespace: read-only for root too
    _clear_failure(hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path,
                          wrapper=read_only_mount(hermes_home)),
                   "cannot write the session store")
    assert not (hermes_home / "state.db").exists()


@pytest.mark.parametrize("args", [["-q", "hi"], ["sessions", "list"]])
def test_corrupt_state_db_is_reported_and_left_alone(args, fake_provider, hermes_home, tmp_path):
    junk = os.urandom(8192)
    (hermes_home / "state.db").write_bytes(junk)
    result = hermes(args, anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    _clear_failure(result, "is not a valid SQLite database", "Move it aside")
    assert (hermes_home / "state.db").read_bytes() == junk
    assert not fake_provider.requests


def test_sessions_list_reads_while_another_process_writes(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    assert hermes(["-q", "first"], env, cwd=tmp_path).returncode == 0
    other = sqlite3.connect(hermes_home / "state.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        start = time.monotonic()
        listed = hermes(["sessions", "list"], env)
        assert time.monotonic() - start < 4  # no wait for the write lock
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert listed.returncode == 0, listed.stderr
    assert "first" in listed.stdout


# ---- skills and notes -----------------------------------------------------------------

def _broken_skills(home: Path) -> None:
    def put(folder: str, text: str | bytes | None) -> None:
        root = home / "skills" / folder
        root.mkdir(parents=True)
        if text is None:
            (root / "SKILL.md").mkdir()
        elif isinstance(text, bytes):
            (root / "SKILL.md").write_bytes(text)
        else:
            (root / "SKILL.md").write_text(text)

    put("badyaml", "---\nname: badyaml\ndescription: [unclosed\n---\nbody\n")
    put("nodesc", "---\nname: nodesc\n---\nbody\n")
    put("longname", "---\nname: " + "a" * 70 + "\ndescription: d\n---\n")
    put("latin", b"---\nname: latin\ndescription: caf\xe9\n---\n")
    put("dirmd", None)


def test_broken_skills_are_warnings_and_named_when_asked_for(fake_provider, hermes_home, tmp_path):
    _broken_skills(hermes_home)
    env = anthropic_env(hermes_home, fake_provider)
    listed = hermes(["skills", "list"], env)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr
    for problem in ("line 4:", "missing 'description'", "70 characters long", "not UTF-8",
                    "SKILL.md is a directory"):
        assert problem in listed.stderr
    preload = hermes(["-q", "hi", "--skills", "badyaml"], env, cwd=tmp_path)
    _clear_failure(preload, "skill 'badyaml' is broken", "invalid YAML frontmatter (line 4:")
    _clear_failure(hermes(["skills", "show", "nodesc"], env), "skill 'nodesc' is broken")
    shown = hermes(["prompt", "show"], env, cwd=tmp_path)
    assert shown.returncode == 0 and "skipped skill" in shown.stderr
    assert not fake_provider.requests


def test_memory_over_its_limit_still_builds_the_prompt_with_a_warning(fake_provider, hermes_home,
                                                                       tmp_path):
    memories = hermes_home / "memories"
    memories.mkdir()
    (memories / "MEMORY.md").write_text("\n§\n".join(f"fact-{i} " + "x" * 90 for i in range(40)))
    (memories / "USER.md").write_bytes(b"\xff\xfe garbage \x80")
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "over its 2,200-char limit" in result.stderr
    assert "USER.md is not UTF-8 text" in result.stderr
    system = json.dumps(fake_provider.requests[0].body["system"])
    assert "fact-0 " in system and "fact-39 " in system  # used whole, nothing cut
    assert (memories / "USER.md").read_bytes() == b"\xff\xfe garbage \x80"


# ---- flags and sessions commands -----------------------------------------------------

@pytest.mark.parametrize(("args", "expected"), [
    (["--max-turns", "0", "-q", "hi"], "--max-turns must be at least 1, got 0"),
    (["-q", ""], "the question given to -q is empty"),
    (["-q", "  \n "], "the question given to -q is empty"),
])
def test_bad_flags_are_refused_before_any_call(args, expected, fake_provider, hermes_home, tmp_path):
    _clear_failure(hermes(args, anthropic_env(hermes_home, fake_provider), cwd=tmp_path), expected)
    assert not fake_provider.requests
    assert not (hermes_home / "state.db").exists() or not SessionStore(
        hermes_home / "state.db").list_sessions()


@pytest.mark.wire
def test_delete_of_a_parent_keeps_and_names_its_children(hermes_home):
    store = SessionStore(hermes_home / "state.db")
    store.create_session("parent-1", model="m", provider="anthropic", system_prompt="p")
    store.create_session("child-1", model="m", provider="anthropic", system_prompt="p",
                         parent_id="parent-1")
    store.append_message("child-1", role="user", content="still here")
    store.close()
    env = child_env(hermes_home)
    unanswered = hermes(["sessions", "delete", "parent-1"], env, input_text="")
    assert unanswered.returncode == 1 and "Kept parent-1" in unanswered.stderr
    assert "Traceback" not in unanswered.stderr
    deleted = hermes(["sessions", "delete", "parent-1", "--yes"], env)
    assert deleted.returncode == 0 and "child-1" in deleted.stdout
    shown = hermes(["sessions", "show", "child-1"], env)
    assert "still here" in shown.stdout


# ---- provider trouble ---------------------------------------------------------------

def test_stalled_stream_times_out_per_config_with_a_hint(fake_provider, hermes_home, tmp_path):
    (hermes_home / "config.yaml").write_text("timeout: 0.5\nretry: {attempts: 1}\n")
    fake_provider.script(Reply(text="never finishes " * 5, delay=30, chunks=4))
    start = time.monotonic()
    result = hermes(["-q", "hi"], anthropic_env(hermes_home, fake_provider), cwd=tmp_path)
    assert time.monotonic() - start < 15
    _clear_failure(result, "timed out", "`timeout:`")


# ---- signals mid-turn -----------------------------------------------------------------

def _start(env: dict[str, str], cwd: Path, fake) -> subprocess.Popen[str]:
    proc = subprocess.Popen([*HERMES, "-q", "go"], env=env, cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_until(lambda: fake.requests, timeout=60, what="the model call")
    return proc


def test_sigterm_mid_stream_saves_a_valid_resumable_session(fake_provider, hermes_home, tmp_path):
    fake_provider.script(Reply(text="x" * 400, delay=0.2, chunks=40))
    env = anthropic_env(hermes_home, fake_provider)
    proc = _start(env, tmp_path, fake_provider)
    wait_until(lambda: fake_provider.requests[0].events_sent >= 3, what="the answer to stream")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=15)
    assert proc.returncode == 143
    assert "interrupted by SIGTERM" in err and "--resume" in err and "Traceback" not in err
    store = SessionStore(hermes_home / "state.db")
    sid = store.latest_session()["id"]
    assert [m["role"] for m in store.messages(sid)] == ["user", "assistant"]
    store.close()
    fake_provider.script(Reply(text="resumed"))
    again = hermes(["--resume", sid, "-q", "more", "--json"], env, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["answer"] == "resumed"


def test_sigint_during_a_command_kills_it_and_exits_130(fake_provider, hermes_home, tmp_path):
    fake_provider.script(Reply(tool_calls=[ToolCall(
        "terminal", {"command": "sleep 30.0271 & echo $! > sleeper.pid; wait"})]))
    env = anthropic_env(hermes_home, fake_provider)
    proc = _start(env, tmp_path, fake_provider)
    pid_file = tmp_path / "sleeper.pid"
    wait_until(lambda: pid_file.exists() and pid_file.read_text().strip(),
               what="the command to start its sleeper")
    assert host_pids_running("30.0271")  # (its pid in the file is its session's namespace's)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=15)
    assert proc.returncode == 130
    assert "interrupted by SIGINT" in err and "Traceback" not in err
    wait_until(lambda: not host_pids_running("30.0271"), timeout=30, what="the sleeper to be killed")
    store = SessionStore(hermes_home / "state.db")
    rows = store.messages(store.latest_session()["id"])
    assert [m["role"] for m in rows] == ["user", "assistant", "tool", "assistant"]
    assert "interrupted" in rows[2]["content"]


def test_deleted_working_directory_is_a_clear_error(fake_provider, hermes_home, tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    result = subprocess.run(["sh", "-c", script, "sh", str(gone), *HERMES, "-q", "hi"],
                            env=anthropic_env(hermes_home, fake_provider), capture_output=True,
                            text=True, timeout=30)
    _clear_failure(result, "the current directory no longer exists")
    assert not fake_provider.requests


@pytest.mark.wire
def test_sessions_list_refuses_a_limit_below_one(hermes_home):
    result = hermes(["sessions", "list", "-n", "0"], child_env(hermes_home))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--limit" in result.stderr


# ---- inputs that once crashed or hung the CLI: one clear line, exit status 1 ----------

def _nested(home: Path) -> None:
    (home / "config.yaml").write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")


def _fifo(home: Path) -> None:
    (home / "config.yaml").unlink(missing_ok=True)
    os.mkfifo(home / "config.yaml")


def _damaged_session(home: Path) -> None:
    store = SessionStore(home / "state.db")
    store.create_session("s1", model="claude-sonnet-4-5", provider="anthropic", system_prompt="s")
    store.append_message("s1", role="user", content="hi")
    store.append_message("s1", role="assistant", content="",
                         tool_calls=[{"id": "c1", "name": "todo", "arguments": "{}"}])
    store.append_message("s1", role="tool", content="ok", tool_call_id="c1", tool_name="todo")
    with sqlite3.connect(home / "state.db") as db:
        db.execute("UPDATE messages SET tool_calls = '[{\"id\": \"c1\", \"na' WHERE seq = 1")


@pytest.mark.parametrize(("prepare", "args", "env", "expected"), [
    (_nested, ["-q", "hi"], {}, "settings nested more than 32 levels deep"),
    (_fifo, ["-q", "hi"], {}, "config.yaml is a FIFO, not a regular file"),
    (None, ["--base-url", "http://[::1", "-q", "hi"], {},
     "--base-url is not a usable URL: 'http://[::1' (Invalid IPv6 URL)"),
    (None, ["-q", "hi"], {"ANTHROPIC_BASE_URL": "::garbage::"},
     "ANTHROPIC_BASE_URL is not a usable URL: '::garbage::'"),
    (None, ["--max-usd", "nan", "-q", "hi"], {}, "--max-usd must be a finite number more than 0, got nan"),
    (None, ["--max-usd", "inf", "-q", "hi"], {}, "--max-usd must be a finite number more than 0, got inf"),
    (_damaged_session, ["--resume", "s1", "-q", "next"], {},
     "the stored tool_calls of message 1 of session s1 is damaged (not valid JSON"),
], ids=["nested-config", "fifo-config", "base-url-flag", "base-url-env", "max-usd-nan",
        "max-usd-inf", "damaged-tool-calls"])
def test_inputs_that_crashed_or_hung_are_one_line(prepare, args, env, expected, fake_provider,
                                                  hermes_home, tmp_path):
    if prepare:
        prepare(hermes_home)
    result = hermes(args, {**anthropic_env(hermes_home, fake_provider), **env}, cwd=tmp_path,
                    timeout=30)
    _clear_failure(result, expected)
    assert result.returncode == 1 and result.stderr.count("hermes: error:") == 1
    assert not fake_provider.requests
