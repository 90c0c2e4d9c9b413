"""`hermes cron ...` in a real process (wire tier): add, list, pause, resume, remove, and
bad input as one line without a traceback."""

from __future__ import annotations

import pytest
import yaml

from tests.helpers import MODEL, child_env, hermes

pytestmark = pytest.mark.wire


@pytest.fixture
def env(hermes_home):
    (hermes_home / "config.yaml").write_text(yaml.safe_dump({
        "provider": "anthropic", "model": MODEL, "api_key": "k",
        "base_url": "http://127.0.0.1:9"}), encoding="utf-8")
    return child_env(hermes_home)


def test_add_list_pause_resume_remove(env, tmp_path):
    added = hermes(["cron", "add", "0 8 * * 1-5", "Summarise the issues", "--name", "digest",
                    "--deliver", "file:out.md", "--tz", "Europe/Paris"], env, cwd=tmp_path)
    assert added.returncode == 0, added.stderr
    assert "added job digest (id 1): 0 8 * * 1-5 (Europe/Paris)" in added.stdout
    assert f"the end of the file {tmp_path.resolve() / 'out.md'}" in added.stdout
    assert "never --yolo" in added.stdout  # what each run may do, said before it runs
    assert "no scheduler is running for this home" in added.stderr  # and that none fires it
    listed = hermes(["cron", "list"], env)
    assert "digest" in listed.stdout and "next 20" in listed.stdout and "never ran" in listed.stdout
    assert "hermes gateway" in listed.stderr
    status = hermes(["cron", "status"], env).stdout
    assert "scheduler: none" in status and "next fires:" in status and "digest" in status
    assert "paused job digest" in hermes(["cron", "pause", "digest"], env).stdout
    assert "paused" in hermes(["cron", "list"], env).stdout
    assert "resumed job digest" in hermes(["cron", "resume", "1"], env).stdout
    assert "removed job digest" in hermes(["cron", "remove", "digest"], env).stdout
    assert "no scheduled jobs" in hermes(["cron", "list"], env).stdout


@pytest.mark.parametrize(("args", "words"), [
    (["61 * * * *", "x"], "minute field: 61 is out of range 0-59"),
    (["every 5s", "x"], "the shortest interval is 1m"),
    (["0 8 * * *", "x", "--tz", "Mars/Base"], "unknown timezone"),
    (["0 8 * * *", "x", "--model", "claude-nonexistent-9"], "unknown model"),
    (["0 8 * * *", "x", "--deliver", "telegram:42"], "telegram delivery needs"),
    (["0 8 * * *", "x", "--deliver", "slack:C0123ABCD"], "slack delivery needs"),
    (["0 8 * * *", "x", "--deliver", "discord:42"], "discord delivery needs"),
    (["0 8 * * *", "x", "--skills", "nope"], "unknown skill(s): nope"),
    (["0 8 * * *", "x", "--allow", "terminal()"], "empty pattern"),
    (["0 8 * * *", "x", "--max-usd", "0"], "--max-usd must be more than 0"),
    (["0 8 * * *", "x", "--deliver", "file:~/.bashrc"], "outside the folders"),
])
def test_bad_jobs_are_refused_in_one_line(env, args, words):
    result = hermes(["cron", "add", *args], env)
    assert result.returncode == 1
    assert words in result.stderr and "hint:" in result.stderr
    assert "Traceback" not in result.stderr
    assert "no scheduled jobs" in hermes(["cron", "list"], env).stdout


def test_unknown_job_is_one_line(env):
    result = hermes(["cron", "remove", "ghost"], env)
    assert result.returncode == 1 and "no job 'ghost'" in result.stderr


def test_deliver_help_names_every_target(env):
    """Before: `--deliver`'s help left out slack: and discord:."""
    shown = " ".join(hermes(["cron", "add", "--help"], env).stdout.split())
    for form in ("none", "origin", "file:", "telegram:", "slack:", "discord:"):
        assert form in shown, form
