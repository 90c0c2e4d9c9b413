"""Budgets through the real CLI: --max-usd stops a turn with a grace reply
and says so; a spent session refuses the next turn with how to raise the limit."""

from __future__ import annotations

import json

import pytest

from tests.fakes import Reply
from tests.helpers import anthropic_env, hermes

pytestmark = pytest.mark.wire


def test_max_usd_stops_then_refuses(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(Reply(text="the short answer"))
    first = hermes(["-q", "hi", "--json", "--max-usd", "0.000001"], env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    # the first call's estimate already crosses the limit: it is the grace call
    assert out["stop_reason"] == "budget_session_usd" and out["answer"] == "the short answer"
    assert out["budget"]["session_usd"] == 0.000001
    assert out["budget"]["spent_usd"] == pytest.approx(out["usage"]["cost_usd"])
    assert "warning: stopped at the session spend limit" in first.stderr
    again = hermes(["-q", "more", "-c", "--max-usd", "0.000001"], env, cwd=tmp_path)
    assert again.returncode == 1
    assert "error: the session spend limit is reached" in again.stderr
    assert "--max-usd" in again.stderr and "Traceback" not in again.stderr
    assert len(fake_provider.requests) == 1  # the refused turn sent nothing
    bad = hermes(["-q", "x", "--max-usd", "-2"], env, cwd=tmp_path)
    assert bad.returncode != 0 and "--max-usd must be a finite number more than 0" in bad.stderr
