"""Stored text with rich markup in it is shown as written by the real CLI."""

from __future__ import annotations

from tests.fakes import Reply
from tests.helpers import anthropic_env, hermes

QUESTION = "why does x[/b] fail? [bracketed]"


def test_sessions_show_and_list_print_brackets_as_written(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(Reply(text="because [red]y[/red]"))
    assert hermes(["-q", QUESTION], env, cwd=tmp_path).returncode == 0
    listed = hermes(["sessions", "list"], env)
    assert listed.returncode == 0 and QUESTION in listed.stdout, listed.stderr
    session_id = listed.stdout.splitlines()[1].split("\t")[0]  # under the header row
    shown = hermes(["sessions", "show", session_id], env)
    assert shown.returncode == 0, shown.stderr
    assert f"you: {QUESTION}" in shown.stdout and "hermes: because [red]y[/red]" in shown.stdout
