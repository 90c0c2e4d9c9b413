"""One scripted turn, judged the same by one-shot and the gateway.

The turn answers, then the automatic compression after it fails (the summary call is
refused). The answer stands: one-shot exits 0 with a warning, the gateway answers 200
(tests/gateway/test_gateway_turn_judgement.py). Before the shared TurnOutcome, one-shot
exited 1 for the same turn."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.fakes import Error, Reply
from tests.helpers import anthropic_env, hermes

pytestmark = pytest.mark.wire

MODEL = "claude-sonnet-5-5"
LONG = "please look at this part of the parser: " + "tokens and more tokens " * 340


def _compressing_config(home, extra: dict | None = None) -> None:
    """A window the fourth ~2,000-token message crosses the trigger of, with compacting
    halving the prompt (a compaction that would not help is never attempted)."""
    config = {"model": MODEL, "context_windows": {MODEL: 12_000},
              "compression": {"threshold": 0.6}, "toolsets": ["file"], **(extra or {})}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def test_oneshot_keeps_the_answer_when_compression_after_it_fails(fake_provider, hermes_home,
                                                                  tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    fake_provider.script(*(Reply(text=f"answer {n}") for n in range(3)))
    for n in range(3):  # a history with something to summarise (no compression yet)
        assert hermes(["-q", f"{n}: {LONG}"] + (["-c"] if n else []), env,
                      cwd=tmp_path).returncode == 0
    _compressing_config(hermes_home)
    fake_provider.script(Reply(text="the final answer"), Error(400, "summaries refused"))
    result = hermes(["-q", f"last: {LONG}", "-c", "--json"], env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["answer"] == "the final answer" and payload["error"] is None
    assert "warning: Compression failed" in result.stderr
    assert [r.status for r in fake_provider.requests[-2:]] == [200, 400]  # it really failed
